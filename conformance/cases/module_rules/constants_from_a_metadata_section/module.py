from tvm.script import ir as I, relax as R, tirx as T

metadata = tvm.ir.load_json("""{
  \"root_index\": 18,
  \"nodes\": [
    {
      \"type\": \"ffi.String\",
      \"data\": \"relax.expr.Constant\"
    },
    {
      \"type\": \"None\"
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 3
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        2
      ]
    },
    {
      \"type\": \"relax.ShapeStructInfo\",
      \"data\": {
        \"span\": 1,
        \"values\": 3,
        \"ndim\": 1
      }
    },
    {
      \"type\": \"relax.expr.ShapeExpr\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 4,
        \"values\": 3
      }
    },
    {
      \"type\": \"relax.TensorStructInfo\",
      \"data\": {
        \"span\": 1,
        \"shape\": 5,
        \"dtype\": \"float32\",
        \"vdevice\": 1,
        \"ndim\": 1
      }
    },
    {
      \"type\": \"ffi.Tensor\",
      \"data\": \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAADAPwAAAMAAAIA+\"
    },
    {
      \"type\": \"relax.expr.Constant\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 6,
        \"data\": 7
      }
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 1
      }
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 2
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        9,
        10
      ]
    },
    {
      \"type\": \"relax.ShapeStructInfo\",
      \"data\": {
        \"span\": 1,
        \"values\": 11,
        \"ndim\": 2
      }
    },
    {
      \"type\": \"relax.expr.ShapeExpr\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 12,
        \"values\": 11
      }
    },
    {
      \"type\": \"relax.TensorStructInfo\",
      \"data\": {
        \"span\": 1,
        \"shape\": 13,
        \"dtype\": \"int32\",
        \"vdevice\": 1,
        \"ndim\": 2
      }
    },
    {
      \"type\": \"ffi.Tensor\",
      \"data\": \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAAgAQABAAAAAAAAAAIAAAAAAAAACAAAAAAAAAAHAAAA+P\\/\\/\\/w==\"
    },
    {
      \"type\": \"relax.expr.Constant\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 14,
        \"data\": 15
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        8,
        16
      ]
    },
    {
      \"type\": \"ffi.Map\",
      \"data\": [
        0,
        17
      ]
    }
  ],
  \"metadata\": {
    \"tvm_version\": \"0.25.0\"
  }
}""")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((1, 2), dtype="float32")):
        gv: R.Tensor((3,), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        gv1: R.Tensor((1, 2), dtype="float32") = R.astype(metadata["relax.expr.Constant"][1], dtype="float32")
        return (gv, gv1)
