"""Adapter for Apache TVM 0.25 and later releases (``--impl tvm``).

``load`` first puts the case's text in the installed release's dialect (:mod:`.tvm_text`: relax-ref's
parser and printer, so TVM 0.27 reads ``out_ty=`` where the case says ``out_sinfo=``), then parses it with ``tvm.script.from_source`` (its ``tvm`` / ``typing`` import lines are
blanked first and the names they bind passed as ``extra_vars``: TVM's parser reads no import), runs Relax well-formedness, applies
``LambdaLift`` when the module has local functions (the VM cannot run them otherwise), and builds with
``relax.build(mod, target="llvm")``. ``run`` calls the entry function on a fresh VM.

TVM reports errors as Python exceptions whose *type* is coarse (``ValueError``, ``TypeError``,
``InternalError``, ``DiagnosticError``), so errors are classified by type and message with the tables
below (the messages of TVM 0.25 and 0.27; a pattern names the release when only one of them writes it).
Unmatched errors are ``unclassified``.

TVM can kill its process (integer division by zero, out-of-bounds TensorIR accesses, some known
crash bugs), so the runner always uses this adapter inside the worker process of
:mod:`relax_conformance.worker`; a crash then becomes a ``crash`` failure of that one case.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any, Optional

import numpy as np

from .. import vocab
from ..adapter import Adapter, LoadError, RunError, Unsupported
from ..packed import SUITE_FUNCS, SuiteFuncError
from ..values import Prim, Shape
from .tvm_text import operators_of, release_dialect, text_for, unsupported_features

# (pattern, kind) tried in order against the message of a static (load-time) error.
STATIC_PATTERNS: tuple[tuple[str, str], ...] = (
    # text problems first: TVMScript reports unknown names and forbidden constructs while parsing;
    # op_misc/call_py_func_output_without_shape (OP.call_py_func.C1): the constructor rejects the output
    (r"out_(ty|sinfo) of call_py_func should have defined ShapeExpr", "parse"),  # 0.27 | 0.25
    (r"Undefined variable", "parse"),
    (r"name '.*' is not defined", "parse"),
    (r"has no attribute", "parse"),
    (r"Type annotation is required", "parse"),
    (r"multiple return statement", "parse"),
    (r"String-defined shape expr is only allowed", "parse"),
    (r"Visitor of AST node is not implemented", "parse"),
    (r"Empty body is not allowed", "parse"),
    # dist/rejects_*: R.DTensor's mesh and placement texts, checked while TVMScript reads the annotation
    (r"The number of device ids must match the product of the shape", "parse"),
    (r"The device mesh and placement must have the same dimension size", "parse"),
    (r"Sharding dimension should be smaller than tensor ndim", "parse"),
    (r"Check failed: lbracket == '\['", "parse"),
    (r"KeyError: 'key is not in Map'", "parse"),
    (r"Index out of range\. size: \d+, got index \d+\s+-->", "parse"),
    # module_rules/annotation_ndim_disagrees_with_its_shape (SI.TENSOR.2): TVMScript refuses a shape with ndim
    (r"Cannot both specify shape and ndim", "parse"),
    # module_rules/match_cast_without_a_variable (DIV.12): an R.match_cast statement that binds nothing
    (r"Unsupported Expr stmt type .*MatchCastPair", "parse"),
    (r"Non-void relax expressions must be bound to a variable", "parse"),
    (r"No result exists in IRBuilder", "parse"),
    (r"multiple output operation", "parse"),
    # text rules the parser enforces with a failed check or a wrapped Python error (DiagnosticError)
    # text/function_defined_twice (MOD.2, TEXT.MOD.2): a second definition of a global name
    (r"global_var_map\.count\(func_name\)\) is false: function \w+ already exists", "parse"),
    # text/unknown_decorator_option (TEXT.MOD.2): an option @R.function / @T.prim_func does not take
    (r"\b(function|prim_func)\(\) got an unexpected keyword argument '\w+'", "parse"),
    # text/private_with_global_symbol (TEXT.FUNC.1): R.func_attr sets global_symbol on a private function
    (r"A private function may not have the kGlobalSymbol \(\"global_symbol\"\) attribute", "parse"),
    # text/missing_return (TEXT.BODY.1): a Relax function body without a return statement
    (r"A Relax function must have a return value", "parse"),
    # text/parameter_named_like_symbolic_var (TEXT.SYM.2): a name bound twice in the signature's scope
    (r"Variable \w+ already defined in current scope", "parse"),
    # text_dialects/typevar_*: TVM 0.27's rules for a top-level TypeVar (TEXT.DIALECT.3)
    (r"TypeVar binding '\w+' must match its declared name", "parse"),
    (r"Symbolic TypeVar '\w+' must not have constraints or a bound", "parse"),
    # text/equality_operator (TEXT.EXPR.3): TVM 0.27's parser refuses == between Relax expressions
    (r"Operand should be a Expr\.", "parse"),
    # text/symbolic_dtype_redeclared (TEXT.SYM.1): TVM 0.27 refuses to redeclare a symbolic variable
    # with another dtype where the redeclaration stands (0.25 failed later, on the parameter's shape)
    (r"Expected the same dtype for PrimType values", "parse"),
    # module_rules/handle_is_not_a_tensor_dtype: TVM 0.27's parser refuses a handle as a scalar type
    (r"PrimType cannot represent an opaque pointer", "parse"),
    # text/integer_true_division (TEXT.PRIM.2): '/' between integer scalar expressions
    (r"TVM supports multiple types of integer divisions, please call div", "parse"),
    # struct-info inference and annotation checks
    (r"All information in (StructInfo|Type) annotations must be correct", "struct_info"),  # 0.25 | 0.27
    (r"Invalid annotation", "struct_info"),
    (r"cannot be assigned to a variable of type", "struct_info"),
    (r"It is impossible to match cast", "struct_info"),
    (r"Binary operators must have the same datatype", "struct_info"),
    (r"requires the input tensor to have", "struct_info"),
    (r"not broadcastable|the first input shape at dim .* and the second input shape", "struct_info"),
    (r"Argument \d+ type mismatch", "struct_info"),
    (r"Number of arguments and parameters mismatch", "struct_info"),
    (r"Reshape expects", "struct_info"),
    (r"requires the reduction length", "struct_info"),
    (r"Index out of bounds: Tuple", "struct_info"),
    (r"Call expects its operator to have FuncStructInfo", "struct_info"),
    (r"Call->op must contains a function type", "struct_info"),  # 0.27's wording of the check above
    (r"Expression of type .* cannot be called", "struct_info"),  # 0.27: calling a non-function
    (r"FValidate", "struct_info"),
    (r"In-place index .* is out of range", "struct_info"),
    # SI.SHAPE.2: a shape value that is not int64. Added for text/symbolic_dtype_redeclared, which stays a
    # divergence (TVM re-types the signature's n and fails this check; TEXT.SYM.1 wants a parse error)
    (r"is false: (the value in ShapeStructInfo can only have dtype of int64|"
     r"Can only provide i64 expressions in shape)", "struct_info"),
    # operator inference failures reported as failed checks (element-wise and core operators)
    (r"requires argument \d+ \(\w+\) to be a tensor", "struct_info"),
    (r"Arguments to binary operators must be either R\.Tensor or R\.Prim", "struct_info"),
    (r"requires the input condition tensor to have boolean dtype", "struct_info"),
    (r"arguments of EwiseFMA must have the same|must be equal for EwiseFMA", "struct_info"),
    (r"is expected to be a Prim(Value|Expr)", "struct_info"),  # 0.25 | 0.27
    # 0.27: an operator's Python wrapper refuses a Relax variable where it needs a scalar (R.tril's k)
    (r"Cannot convert \w+ with type <class 'tvm\.ir\.expr\.Var'> to `Expr`", "struct_info"),
    (r"The argument to assert must be a boolean scalar", "struct_info"),
    (r"expects the first argument to be a GlobalVar", "struct_info"),
    (r"shape_of expects a tensor input", "struct_info"),
    (r"tensor_to_shape expected argument to be 1-d", "struct_info"),
    (r"There must be an in-place index specified for each output|All in-place indices must be unique",
     "struct_info"),
    (r"At least one index must have a value other than -1", "struct_info"),
    (r"must be a tensor with identical shape and dtype as the output", "struct_info"),
    (r"does not match that for the in-place argument", "struct_info"),
    # creation, data-type, linear-algebra, statistical and search operators
    (r"the input axis -?\d+ is out of range|input axes is required to be non-repetitive", "struct_info"),
    (r"Matmul operands must not be scalar|torch\.outer requires both inputs", "struct_info"),
    (r"Einsum expects|Cannot broadcast extents|Number of operands does not match the equation|"
     r"Cannot parse the Einsum equation|Ellipsis can only appear once", "struct_info"),
    (r"(Full|FullLike|Ones/Zeros) requires the input", "struct_info"),
    (r"(Arange|Eye|Eye_like|Hamming_window) expects|Hamming Window expects the datatype", "struct_info"),
    (r"Bucketize requires boundary to be 1-D", "struct_info"),
    (r"requires that args\[\d+\] be a relax\.\w+StructInfo", "struct_info"),
    (r"Check failed: pb->value != 0 \(0 vs\. 0\) : Divide by zero", "struct_info"),
    # nn and image operators
    (r"The channel size of the data should equal|expects the number of (output|input) channels to be divisible|"
     r"expects the output padding less than the strides|expects the channel size of the data should equal",
     "struct_info"),
    (r"layout \w+ requires the input to be \d+-dim tensor|requires the given \w+ layout to be convertible",
     "struct_info"),
    (r"requires the input gamma, beta, etc\., to have size|requires the input \w+ to have as many dimensions|"
     r"requires the input data to have float dtype|requires all the input tensors to have the same dtype",
     "struct_info"),
    (r"expects that (channel_axis must not be in axes|the size of channel_axis must be divisible|all inputs must|"
     r"data must be float|the size of input)", "struct_info"),
    (r"batch_flatten expects input tensor|Illegal pad_width|Number of input channels must be divisible by the square|"
     r"PixelShuffle requires at least 3D|Upscale factor must be positive", "struct_info"),
    (r"The (query|key|value|bias) should have 4 dimension|The \w+ [\w ]+ and the \w+ [\w ]+ should be the same|"
     r"should be a multiple of", "struct_info"),
    (r"CrossEntropy requires|NLLLoss expects|NLLLoss op should take|NLLLoss requires|Shape mismatch for NLLLoss|"
     r"Resize[23]D expects", "struct_info"),
    # manipulation and indexing operators
    (r"Reshape requires|PermuteDims expects|Flip requires|Repeat requires|Concat (expects|op)|Stack (expects|op)|"
     r"meshgrid expects|broadcast_to expects|do not match the rule of collapse sum|fails to match the axes|"
     r"Split op expects|CollapseSumTo requires|layout_transform pad_value dtype|"
     r"number of dimensions in input must match the number of source dimensions in index map", "struct_info"),
    (r"Take op (requires|expects)|GatherElements requires|GatherND (requires|batch_dims)|index_tensor (requires|"
     r"received|expects|: cannot)|one_hot(: | op requires)|ScatterElements (op )?requires|ScatterND (op requires|needs)|"
     r"IndexPut requires|SliceScatter (op )?(requires|expects)|Dynamic strided[_ ]slice (requires|expects)|"
     r"strided_slice operator requires|number of axes provided must match|is_base_of_tuple_of_int64|"
     r"IsBaseOf\(relax::TensorStructInfo\(DataType::Void\(\), kUnknownNDim\), GetStructInfo\(data\)\)|"
     r"IsBaseOf\(relax::TensorType\(std::nullopt, kUnknownNDim\), GetType\(data\)\)|"
     r"Mismatched type on argument #\d+ when calling: `relax\.op\.", "struct_info"),
    # operator rules the parser enforces with a failed check (DiagnosticError)
    # op_core/call_builtin_with_ctx_two_sinfo_args (OP.call_builtin_with_ctx.C1): more than one sinfo_args
    # entry; the check is generic, so the parser's excerpt must show the call_builtin_with_ctx call
    (r"error: Check failed: call->(sinfo|ty)_args\.size\(\) == 1 \(\d+ vs\. 1\) : \n --> [^\n]*\n[^\n]*\n"
     r"[^\n]*\bR\.call_builtin_with_ctx\(", "struct_info"),
    # op_nn/nll_loss_bad_reduction (OP.nn.nll_loss.C1): a reduction other than none, sum and mean
    (r"is false: The argument reduction of NLLLoss should be one of the following values: none, mean, sum\. "
     r"However, the given value is ", "struct_info"),
    # op_quantize (OP.quantize.C1-C4, OP.dequantize.C1-C4)
    (r"Unsupported (output|input) datatype (attribute )?for operation|(scale|zero_point) param datatype should be|"
     r"relax\.(de)?quantize: (axis param is out of range|scale and zero_point must be)|"
     r"Size mismatch: .*relax\.(de)?quantize", "struct_info"),
    # op_memory (OP.memory.view.C1-C5), op_inspect (OP.inspect.*.C1-C2)
    (r"Views into an array must not exceed the bounds|may not produce a view that exceeds the bounds|"
     r"name=\"relax\.memory\.view\".*expects (first|second|the dtype|the relative_byte_offset)|"
     r"expects the relative_byte_offset to be a 64-bit integer", "struct_info"),
    # op_misc (OP.multinomial_from_uniform.C1-C3, OP.reverse_sequence.C2-C4, OP.size.C1)
    (r"Multinomial[_ ]from[_ ]uniform op requires|ReverseSequence requires|size expects a tensor input", "struct_info"),
    # op_image (OP.image.affine_grid.C1-C2)
    (r"AffineGrid expects", "struct_info"),
    # op_grad (OP.grad.start_checkpoint.C1, OP.grad.end_checkpoint.C1)
    (r"The argument of relax\.op\.grad\.(start|end)_checkpoint should be a Var", "struct_info"),
    # op_vision (OP.vision.*.C1-C5): the vision operators' inference (TVM 0.25 builds and 0.27)
    (r"ROI(Align|Pool) (expects|only supports)|multibox_transform_loc: |get_valid_counts expects|"
     r"non_max_suppression expects|AllClassNMS input|Only support known ndim", "struct_info"),
    # well-formedness
    (r"is annotated as pure but contains an impure call", "well_formed"),
    (r"occurs within a dataflow block", "well_formed"),
    (r"Cannot create an IfFrame inside a dataflow block", "well_formed"),
    (r"is not defined|is defined more than once|used outside DataflowBlock", "well_formed"),
    (r"Inline PrimFunc is disallowed", "well_formed"),
    (r"[Nn]ot well[- ]formed|well-formed", "well_formed"),
)

# (pattern, kind) tried in order against the message of a run-time error.
RUNTIME_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"Cannot find ffi::Function|conformance\.fail was called|conformance\.\w+: ", "packed_func"),
    # op_misc/call_py_func_missing (OP.call_py_func.C4)
    (r"Python function '[^']*' not found in registry", "packed_func"),
    (r"Invoking function \w+ expects \d+ arguments", "arity_mismatch"),
    (r"expect a Tuple with \d+ elements", "arity_mismatch"),
    # a value of the wrong kind for an R.Prim parameter ("expected dtype int64, but received ObjectRef of
    # type ffi.Shape"): symbolic_calls/callee_binds_through_prim_value_entry (EVAL.CHECK.2)
    (r"but received ObjectRef of type", "type_mismatch"),
    # kv_cache (CALL.KVCACHE.*): a value of another kind where the runtime expects its KV-cache object,
    # and the checks of its lm_support.cc (dtype, row shape, fill count, window size, pop count)
    (r"Cannot convert from type `[^`]*` to `relax\.vm\.AttentionKVCache", "type_mismatch"),
    (r"data\.DataType\(\) == value\.DataType\(\)|value->shape\[i\] == data->shape\[i\]|"
     r"Requested shape do not match the filled count|n <= fill_count|dim 0 of value too large", "op_runtime"),
    # paged_kv_cache (CALL.PAGEDKV.1): the argument count of the paged cache's constructor
    (r"Invalid number of KV cache constructor args", "arity_mismatch"),
    (r"expect (Tensor|Shape) with ndim|match_cast shape size mismatch|Invalid \w+\.ndim|ndim mismatch",
     "ndim_mismatch"),
    (r"expect Tensor with dtype|expected dtype|Invalid \w+\.dtype|Cannot convert from type", "dtype_mismatch"),
    (r"arr->dtype\.code == kDLInt", "dtype_mismatch"),
    (r"PrimValue mismatch", "value_mismatch"),
    (r"PrimExpr mismatch to specified constant", "value_mismatch"),  # 0.27: match_prim_value of a constant
    (r"expect an? (Tensor|Shape|Tuple|Function)\b|Mismatched type on argument", "type_mismatch"),
    # op_memory/view_at_offset_binds_no_buffer (TIR.FUNC.7): a view at a nonzero byte offset
    (r"Invalid \w+\.byte_offset", "shape_mismatch"),
    (r"shape\[\d+\] mismatch|Invalid \w+\.shape\[\d+\]|Mismatched \w+\.shape\[\d+\]|Mismatched \w+\.strides",
     "shape_mismatch"),
    # op_memory/view_bounds_checked_at_run_time (OP.memory.view.C6): runtime.TVMTensorCreateView's bounds check
    (r"relative_byte_offset \+ view_size <= curr_size", "op_runtime"),
    (r"(?i)division by zero|divide by zero", "division_by_zero"),
    # packed/tensor_create_view (CALL.PACKED.6): a view beyond the viewed tensor's bytes
    (r"View with shape \[[\d, ]*\] and datatype \w+ would have a size of", "op_runtime"),
    # op_search/sort_bool_unsupported (OP.SEARCH.SEM.6): TVM's CPU sort/argsort/topk kernels have no
    # kernel for the input dtype (bool)
    (r"^Unsupported input dtype: \w+$", "unsupported"),
)

# (pattern, site) for run-time struct-info errors (EVAL.CHECK.8)
SITE_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"ErrorContext\(match_cast", "match_cast"),
    (r"loc=param\[", "param"),
    (r"loc=return", "return"),
    (r"Invoking function \w+ expects", "param"),
    (r"on argument #\d+ when calling", "call_tir"),
    (r"arr->dtype\.code == kDLInt", "if_cond"),
)


def _first_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}".strip()


def _chain_text(err: BaseException) -> str:
    """The messages of ``err`` and of the exceptions it wraps (TVMScript hides the real one)."""
    parts, seen = [], set()
    e: Optional[BaseException] = err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        parts.append(str(e))
        e = e.__cause__ or e.__context__
    return "\n".join(parts)


def classify(message: str, patterns: tuple[tuple[str, str], ...]) -> Optional[str]:
    for pat, kind in patterns:
        if re.search(pat, message):
            return kind
    return None


def classify_static(err: BaseException, phase: str = "parse") -> str:
    """The vocabulary kind of an error TVM raised while parsing (``phase="parse"``), checking
    (``"well_formed"``) or compiling (``"build"``) a module. Compiler errors are internal failures
    unless they name a struct-info rule violation the parser let through."""
    if isinstance(err, SyntaxError):
        return "parse"
    kind = classify(_chain_text(err), STATIC_PATTERNS)
    if phase == "build":
        return kind if kind == "struct_info" else "unclassified"
    if kind is not None:
        return kind
    # the TVMScript parser wraps the real exception; its own ParserError means a text problem
    cause = err.__cause__ or err.__context__
    if cause is not None and type(cause).__name__ in ("ParserError", "NameError", "AttributeError",
                                                      "SyntaxError"):
        return "parse"
    return "unclassified"


def classify_runtime(err: BaseException) -> tuple[str, Optional[str]]:
    """The vocabulary kind and the site of an error raised by the Relax VM."""
    if isinstance(err, AssertionError):
        return "assert_failed", None
    if isinstance(err, SuiteFuncError):
        return "packed_func", None
    text = str(err)
    kind = classify(text, RUNTIME_PATTERNS) or "unclassified"
    site = classify(text, SITE_PATTERNS) if kind != "unclassified" else None
    if site is not None and "struct_info_mismatch" not in vocab.ancestors(kind):
        site = None
    return kind, site


def _has_local_functions(mod) -> bool:
    from tvm import relax

    found = []

    def visit(e):
        if isinstance(e, relax.Function):
            found.append(e)

    for _, func in mod.functions.items():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
            if found:
                return True
    return False


def _imports_as_names(text: str) -> tuple:
    """TVM's parser reads no import statement: the text without its top-level imports (blank lines keep
    the line numbers) and the names they bind, as ``extra_vars`` on top of TVM's defaults. Only
    ``tvm`` modules and ``typing.TypeVar`` are imported (the text is a case, not a program to run)."""
    import ast
    import importlib

    from tvm.script.parser.core.entry import _default_globals

    names = dict(_default_globals())
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text, names
    lines = text.split("\n")
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        mods = [stmt.module or ""] if isinstance(stmt, ast.ImportFrom) else [a.name for a in stmt.names]
        if not all(m == "typing" or m == "tvm" or m.startswith("tvm.") for m in mods):
            continue
        for a in stmt.names:
            if isinstance(stmt, ast.ImportFrom):
                mod = importlib.import_module(stmt.module)
                value = getattr(mod, a.name, None)
                names[a.asname or a.name] = value if value is not None else \
                    importlib.import_module(f"{stmt.module}.{a.name}")
            else:
                names[a.asname or a.name.split(".")[0]] = importlib.import_module(a.asname and a.name or
                                                                                  a.name.split(".")[0])
        for i in range(stmt.lineno - 1, stmt.end_lineno):
            lines[i] = ""
    return "\n".join(lines), names


def _describe(v: Any) -> str:
    """A short description of a TVM value that could not be converted (shape and dtype of a tensor)."""
    shape, dtype = getattr(v, "shape", None), getattr(v, "dtype", None)
    if shape is not None:
        return f"a tensor of shape {tuple(int(d) for d in shape)} and dtype {dtype}"
    return f"a {type(v).__name__}"


class TvmAdapter(Adapter):
    """Apache TVM (0.25 or later) on the LLVM CPU target (run it through the worker process). Each case
    is handed over in the installed release's dialect (:mod:`.tvm_text`)."""

    unsupported_features = frozenset({"classic-spelling"})

    def __init__(self) -> None:
        import tvm  # noqa: F401 - fail early if TVM is absent

        self._tvm = tvm
        self.dialect = release_dialect(tvm.__version__)
        self.name = f"tvm {tvm.__version__}, dialect {self.dialect}"
        self.version = tvm.__version__
        # the local view (simulated workers, DIST.LOCAL.1) is the reference's
        self.unsupported_features = unsupported_features(self.dialect) | {"dist-local-view"}
        self._register_suite_funcs()

    # -- packed functions ---------------------------------------------------------------------------

    def _register_suite_funcs(self) -> None:
        tvm = self._tvm
        for spec in SUITE_FUNCS.values():
            tvm.register_global_func(spec.name, self._wrap_suite_func(spec), override=True)
        # relax.call_py_func (TVM 0.27) takes its functions from the VM's Python-function registry
        register_py = tvm.get_global_func("vm.builtin.register_py_func", allow_missing=True)
        if register_py is not None:
            for spec in SUITE_FUNCS.values():
                register_py(spec.name, tvm.get_global_func(spec.name))

    def _wrap_suite_func(self, spec):
        if spec.style == "identity":
            return lambda x: x

        if spec.style == "dps":
            def dps(*tensors):
                arrays = [t.numpy() for t in tensors]
                spec.fn(*arrays)
                for t, a in zip(tensors[len(tensors) - spec.n_out:], arrays[len(arrays) - spec.n_out:]):
                    t.copyfrom(a)
            return dps

        if spec.style == "inplace":
            def inplace(*tensors):
                arrays = [self._from_tvm(t) for t in tensors]
                spec.fn(*arrays)
                tensors[0].copyfrom(arrays[0])
                return tensors[0]
            return inplace

        def value(*args):
            return self._to_tvm(spec.fn(*[self._from_tvm(a) for a in args]))
        return value

    # -- conversions --------------------------------------------------------------------------------

    def _to_tvm(self, v: Any) -> Any:
        tvm = self._tvm
        if isinstance(v, np.ndarray):
            return tvm.runtime.tensor(np.array(v, order="C", copy=True))
        if isinstance(v, Shape):
            return tvm.runtime.ShapeTuple([int(d) for d in v])
        if isinstance(v, Prim):
            dt = v.dtype or ""
            if dt == "bool":
                return bool(v.value)
            if dt.startswith(("int", "uint")):
                return int(v.value)
            return float(v.value) if dt.startswith(("float", "bfloat")) else v.value
        if isinstance(v, tuple):
            return tuple(self._to_tvm(x) for x in v)
        if isinstance(v, str) or v is None:
            return v
        raise TypeError(f"cannot pass {type(v).__name__} to TVM")

    def _from_tvm(self, v: Any) -> Any:
        import tvm_ffi

        tvm = self._tvm
        if isinstance(v, tvm.runtime.Tensor):
            return v.numpy()
        if isinstance(v, tvm_ffi.Shape):
            return Shape(list(v))
        if isinstance(v, (tvm_ffi.Array, list, tuple)):
            return tuple(self._from_tvm(x) for x in v)
        if isinstance(v, bool):
            return Prim(v, None)
        if isinstance(v, (int, float)):
            return Prim(v, None)
        if isinstance(v, str) or v is None:
            return str(v) if v is not None else None
        if isinstance(v, ctypes.c_void_p):
            return None  # an opaque handle, e.g. the VM context of call_builtin_with_ctx
        raise RunError("unclassified", f"TVM returned an unconvertible {type(v).__name__}")

    # -- protocol -----------------------------------------------------------------------------------

    def load(self, text: str, case: Any) -> Any:
        tvm = self._tvm
        from tvm import relax

        self._check_operators(text)  # Unsupported: the release has no such operator
        text = text_for(text, case, self.dialect)[0]  # Unsupported: the release cannot express the case
        try:
            source, names = _imports_as_names(text)
            mod = tvm.script.from_source(source, extra_vars=names, check_well_formed=False)
        except Exception as err:  # noqa: BLE001 - every TVM error is classified
            raise LoadError(classify_static(err), _first_line(err)) from None
        try:
            relax.analysis.well_formed(mod)
        except Exception as err:  # noqa: BLE001
            kind = classify_static(err, "well_formed")
            raise LoadError("well_formed" if kind in ("unclassified", "parse") else kind,
                            _first_line(err)) from None
        try:
            if _has_local_functions(mod):
                mod = relax.transform.LambdaLift()(mod)
            exe = relax.build(mod, target="llvm")
            vm = relax.VirtualMachine(exe, tvm.cpu())
        except Exception as err:  # noqa: BLE001
            raise LoadError(classify_static(err, "build"), "[build] " + _first_line(err)) from None
        return vm

    def _check_operators(self, text: str) -> None:
        """:class:`Unsupported` when the module calls an operator relax-ref knows and the installed
        release does not register (:func:`.tvm_text.operators_of`)."""
        from relax_ref.ops.registry import lookup

        for name in operators_of(text):
            if lookup(name) is None:  # unknown to relax-ref as well: TVM judges the text
                continue
            try:
                self._tvm.ir.Op.get(name)
            except Exception:  # noqa: BLE001 - TVM reports an unregistered operator with a failed check
                raise Unsupported(f"operator:{name}",
                                  f"TVM {self.version} has no operator {name}") from None

    @staticmethod
    def _runtime(err: BaseException) -> tuple[str, str, Optional[str]]:
        kind, site = classify_runtime(err)
        return kind, _first_line(err), site

    def run(self, handle: Any, entry: str, args: list) -> Any:
        try:
            fn = handle[entry]
        except Exception as err:  # noqa: BLE001
            raise RunError("unclassified", f"no function {entry!r}: {_first_line(err)}") from None
        try:
            targs = [self._to_tvm(a) for a in args]
        except Exception as err:  # noqa: BLE001
            raise RunError(*self._runtime(err)) from None
        try:
            out = fn(*targs)
        except Exception as err:  # noqa: BLE001
            raise RunError(*self._runtime(err)) from None
        try:
            return self._from_tvm(out)
        except RunError:
            raise
        except Exception as err:  # noqa: BLE001 - e.g. a tensor whose element count wrapped past int64
            raise RunError("unclassified", f"TVM returned a value that cannot be read: {_describe(out)}: "
                                           f"{_first_line(err)}") from None


__all__ = ["TvmAdapter", "classify_static", "classify_runtime", "STATIC_PATTERNS", "RUNTIME_PATTERNS"]
