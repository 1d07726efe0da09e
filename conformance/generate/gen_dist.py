"""Distributed Relax (spec chapter 16): device meshes, placements and ``R.DTensor`` in text, their
well-formedness, and programs over DTensors evaluated in the global view (a DTensor's value is its
global tensor, DIST.SEM.1).

Oracles: NumPy restatements of the global tensors; rejections from the cited rules.
"""

import textwrap

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Malformed, Prim, TVM_IMPORT, module_text

DIST_IMPORT = "from tvm.script.parser import ir as I, relax as R, tirx as T"
RNG = np.random.default_rng(20261205)

MESHES = 'I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4)), R.device_mesh((4,), [4, 5, 6, 7])]})'


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


def dist_module(functions: str, meshes: str = MESHES) -> str:
    """A module declaring ``meshes`` in its global infos, then ``functions``."""
    text = module_text(meshes + "\n\n" + textwrap.dedent(functions).strip("\n"))
    # R.device_mesh and R.DTensor are in TVM's parser namespace, not in tvm.script.relax
    return text.replace(TVM_IMPORT, DIST_IMPORT, 1)


def _fn(body: str) -> str:
    return textwrap.dedent(body)


def text_cases():
    out = []
    ident = dist_module(_fn('''
        @R.function
        def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"), y: R.DTensor((4, 8), "float32", "mesh[1]", "S[1]"), z: R.DTensor(dtype="float32", device_mesh="mesh[0]", placement="R, R", ndim=1)) -> R.Tuple(R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"), R.DTensor((4, 8), "float32", "mesh[1]", "S[1]"), R.DTensor(dtype="float32", device_mesh="mesh[0]", placement="R, R", ndim=1)):
            return (x, y, z)
    '''))
    runs = []
    for n in (0, 3):
        x, y, z = f32(8, 4), f32(4, 8), f32(n)
        runs.append(([x, y, z], (x, y, z)))
    out.append(Case("dtensor_parameters_hold_global_tensors", ident, runs=runs,
                    spec=["DIST.SI.1", "DIST.TEXT.1", "DIST.TEXT.2", "DIST.MESH.1", "DIST.SEM.1"],
                    tags=["dist", "global-view"],
                    description="DTensor parameters on two declared meshes (a range and an id list) hold their "
                                "global tensors; a DTensor of unknown shape takes any 1-d float32 tensor"))
    const = dist_module(_fn('''
        @R.function
        def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")) -> R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"):
            y: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R") = R.add(x, R.dist.const(2.5, R.DTensor((), "float32", "mesh[0]", "R, R")))
            return y
    '''))
    xs = [np.random.default_rng(16 + i).standard_normal((8, 4)).astype("float32") for i in range(2)]
    out.append(Case("dist_const_is_a_dtensor_constant", const, runs=[([x], x + np.float32(2.5)) for x in xs],
                    spec=["DIST.TEXT.5", "DIST.OP.2", "DIST.SEM.1"], tags=["dist", "global-view"],
                    description="R.dist.const is a constant of the given DTensor struct info; added to a DTensor "
                                "on the same mesh it is its scalar value"))
    wrong = dist_module(_fn('''
        @R.function
        def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")) -> R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"):
            return x
    '''))
    good = f32(8, 4)
    out.append(Case("dtensor_parameter_checks_its_global_shape", wrong,
                    runs=[Fails([f32(4, 4)], "shape_mismatch", "the global shape is (8, 4)"),
                          Fails([f32(8, 4).astype("float16")], "dtype_mismatch", "the dtype is float32"),
                          ([good], good)],
                    spec=["DIST.SEM.1", "DIST.SI.1"], tags=["dist", "global-view"],
                    description="matching a value against R.DTensor checks the global shape and dtype"))
    bad = {
        "unknown_mesh_name": ('x: R.DTensor((8, 4), "float32", "grid[0]", "R, R")', ["DIST.TEXT.2"],
                              "the module declares no global info 'grid'"),
        "mesh_index_out_of_range": ('x: R.DTensor((8, 4), "float32", "mesh[2]", "R, R")', ["DIST.TEXT.2"],
                                    "the module declares two meshes"),
        "placement_text": ('x: R.DTensor((8, 4), "float32", "mesh[0]", "S(0), R")', ["DIST.PLACE.2"],
                           "a spec is R or S[k]"),
        "placement_too_short": ('x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0]")', ["DIST.SI.2"],
                                "mesh[0] has two axes"),
        "shard_axis_out_of_range": ('x: R.DTensor((8, 4), "float32", "mesh[0]", "S[2], R")', ["DIST.SI.2"],
                                    "the tensor has rank 2"),
    }
    for name, (param, spec, why) in bad.items():
        text = dist_module(f"@R.function\ndef main({param}):\n    return x\n")
        out.append(Malformed(f"rejects_{name}", text, spec=spec, tags=["dist", "text"], description=why))
    bad_mesh = dist_module('@R.function\ndef main(x: R.DTensor((8,), "float32", R.device_mesh((3,), I.Range(0, 2)), "R")):\n'
                           '    return x\n')
    out.append(Malformed("rejects_mesh_of_wrong_size", bad_mesh, spec=["DIST.MESH.1"], tags=["dist", "text"],
                         description="a mesh of shape (3,) needs 3 device ids, I.Range(0, 2) gives 2"))
    return out


def well_formed_cases():
    out = []
    undeclared = dist_module('@R.function\ndef main(x: R.DTensor((8,), "float32", R.device_mesh((2,), I.Range(0, 2)), '
                             '"S[0]")) -> R.DTensor((8,), "float32", R.device_mesh((2,), I.Range(0, 2)), "S[0]"):\n'
                             '    return x\n')
    out.append(Invalid("mesh_not_declared_by_the_module", undeclared, "well_formed", spec=["DIST.WF.1"],
                       tags=["dist"], description="the module declares meshes, and (2,) over devices 0-1 is not one"))
    uneven = dist_module('@R.function\ndef main(x: R.DTensor((6, 4), "float32", "mesh[0]", "S[0], S[0]")) -> '
                         'R.DTensor((6, 4), "float32", "mesh[0]", "S[0], S[0]"):\n    return x\n')
    out.append(Invalid("shard_does_not_divide_the_axis", uneven, "well_formed", spec=["DIST.WF.2", "DIST.PLACE.1"],
                       tags=["dist"], description="axis 0 of extent 6 split over both mesh axes (4 parts)"))
    even = dist_module('@R.function\ndef main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], S[0]"), '
                       'y: R.DTensor(("n", 4), "float32", "mesh[0]", "S[0], S[1]")) -> '
                       'R.DTensor((8, 4), "float32", "mesh[0]", "S[0], S[0]"):\n    return x\n')
    x = f32(8, 4)
    out.append(Case("shards_that_divide_or_are_symbolic", even, runs=[([x, f32(3, 4)], x)],
                    spec=["DIST.WF.2", "DIST.PLACE.1", "DIST.SEM.1"], tags=["dist"],
                    description="8 splits into 4 parts; a symbolic extent is not checked statically"))
    tensor_param = dist_module(_fn('''
        @R.function
        def f(a: R.Tensor((8, 4), "float32")) -> R.Tensor((8, 4), "float32"):
            return a

        @R.function
        def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R")) -> R.Tensor((8, 4), "float32"):
            cls = Module
            y = cls.f(x)
            return y
    '''))
    out.append(Invalid("dtensor_is_not_a_tensor", tensor_param, "struct_info", spec=["DIST.SI.4"], tags=["dist"],
                       description="an R.DTensor argument of a function taking R.Tensor: the kinds are unrelated"))
    out += lca_cases()
    return out


def lca_cases():
    out = []
    for same in (True, False):
        placement = "S[0], R" if same else "R, S[1]"
        text = dist_module(_fn(f'''
            @R.function
            def main(x: R.DTensor((8, 4), "float32", "mesh[0]", "S[0], R"), y: R.DTensor((8, 4), "float32", "mesh[0]", "{placement}"), c: R.Prim("bool")) -> R.Tensor((8, 4), "float32"):
                if c:
                    r = x
                else:
                    r = y
                s: R.Tensor((8, 4), "float32") = r
                return s
        '''))
        if same:
            out.append(Invalid("join_of_one_placement_is_a_dtensor", text, "struct_info", spec=["DIST.SI.5", "DIST.SI.4"],
                               tags=["dist", "control-flow"],
                               description="both branches have placement S[0], R: r is an R.DTensor, which the "
                                           "R.Tensor annotation of s does not accept"))
        else:
            x, y = f32(8, 4), f32(8, 4)
            out.append(Case("join_of_two_placements_is_an_object", text,
                            runs=[([x, y, Prim(True, "bool")], x), ([x, y, Prim(False, "bool")], y)],
                            spec=["DIST.SI.5", "DIST.SEM.1"], tags=["dist", "control-flow", "global-view"],
                            description="the branches differ in placement: r is an R.Object, checked against the "
                                        "R.Tensor annotations only at run time, where it holds the global tensor"))
    return out


def generate():
    return {"dist": text_cases() + well_formed_cases()}
