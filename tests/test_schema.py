"""Tests for the operator schema parser (openreg._dispatch.schema)."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import openreg._dispatch.schema as schema_module
from openreg._dispatch.schema import (
    AliasInfo,
    Argument,
    FunctionSchema,
    SchemaParseError,
    SchemaType,
    parse_operator_name,
    parse_schema,
)

# ---------------------------------------------------------------------------------------------------
# Real schemas
# ---------------------------------------------------------------------------------------------------

# Schemas from PyTorch's native_functions.yaml (and openreg's inductor namespace, see API.md) that are
# already in canonical form: printing must reproduce them exactly.
CANONICAL_SCHEMAS = [
    "aten::abs(Tensor self) -> Tensor",
    "aten::abs_(Tensor(a!) self) -> Tensor(a!)",
    "aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    (
        "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values)"
        " -> (Tensor(a!) values, Tensor(b!) indices)"
    ),
    "aten::_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
    "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    (
        "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,"
        " bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"
    ),
    (
        "aten::empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None,"
        " Device? device=None, bool? pin_memory=None) -> Tensor"
    ),
    "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    "aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)",
    "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    (
        "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,"
        " bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor"
    ),
    (
        "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False,"
        " MemoryFormat? memory_format=None) -> Tensor(a)"
    ),
    (
        "aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False,"
        " MemoryFormat? memory_format=None) -> Tensor(a)"
    ),
    (
        "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1,"
        " bool ceil_mode=False) -> Tensor"
    ),
    (
        "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,"
        " SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
    ),
    (
        "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)"
        " -> (Tensor, Tensor, Tensor)"
    ),
    (
        "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,"
        " Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"
    ),
    "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::stack(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
    (
        "aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None,"
        " Device? device=None, bool? pin_memory=None) -> Tensor"
    ),
    "aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
    (
        "aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100)"
        " -> Tensor"
    ),
    "aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor",
    (
        "aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None,"
        " Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor"
    ),
    (
        "aten::set_.source_Storage_storage_offset(Tensor(a!) self, Storage source, SymInt storage_offset,"
        " SymInt[] size, SymInt[] stride=[]) -> Tensor(a!)"
    ),
    "aten::record_stream(Tensor(a!) self, Stream s) -> ()",
    (
        "aten::_fused_adam_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, Tensor(d!)[] exp_avg_sqs,"
        " Tensor(e!)[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2,"
        " float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None,"
        " Tensor? found_inf=None) -> ()"
    ),
    (
        "aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners,"
        " float[]? scale_factors) -> Tensor"
    ),
    "aten::can_cast(ScalarType from, ScalarType to) -> bool",
    "aten::_assert_async.msg(Tensor self, str assert_msg) -> ()",
    "aten::sym_size.int(Tensor self, int dim) -> SymInt",
    (
        "aten::unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False,"
        " bool return_counts=False) -> (Tensor, Tensor, Tensor)"
    ),
    (
        "aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,"
        " str? side=None, Tensor? sorter=None) -> Tensor"
    ),
    'aten::pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor',
    "aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
    "aten::fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
    "aten::nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor",
    "aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "inductor::_mm_plus_mm(Tensor a, Tensor b, Tensor c, Tensor d, Tensor(t!) out) -> Tensor(t!)",
    (
        "inductor::_alloc_from_pool(Tensor self, int offset_bytes, ScalarType dtype, int[] size, int[] stride)"
        " -> Tensor"
    ),
    "inductor::_reinterpret_tensor(Tensor self, int[] size, int[] stride, int offset_increment=0) -> Tensor",
    "inductor::accumulate_grad_(Tensor variable, Tensor new_grad) -> ()",
]

# Real schemas whose canonical printing differs from the yaml text, with PyTorch's printing.
NORMALIZED_SCHEMAS = {
    "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,"
    " float eps=1e-05, bool cudnn_enable=True) -> Tensor": "aten::layer_norm(Tensor input,"
    " SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05,"
    " bool cudnn_enable=True) -> Tensor",
    "aten::normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)": (
        "aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)"
    ),
    "aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor": (
        "aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor"
    ),
    "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,"
    " float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor": (
        "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,"
        " float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor"
    ),
    "aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False,"
    " Generator? generator=None) -> Tensor": "aten::rrelu(Tensor self, Scalar lower=0.125,"
    " Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor",
    "aten::sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None)"
    " -> Tensor": "aten::sum.dim_DimnameList(Tensor self, str[1] dim, bool keepdim=False, *,"
    " ScalarType? dtype=None) -> Tensor",
    "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=[0, 0],"
    " bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor": (
        "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,"
        " bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
    ),
    "aten::max(Tensor self) -> (Tensor)": "aten::max(Tensor self) -> Tensor",
}


def assert_round_trips(s: FunctionSchema) -> None:
    text = str(s)
    again = parse_schema(text)
    assert again == s
    assert hash(again) == hash(s)
    assert str(again) == text


@pytest.mark.parametrize("text", CANONICAL_SCHEMAS)
def test_real_schema_prints_back_exactly(text):
    s = parse_schema(text)
    assert str(s) == text
    assert_round_trips(s)


@pytest.mark.parametrize("text", sorted(NORMALIZED_SCHEMAS))
def test_real_schema_prints_canonically(text):
    s = parse_schema(text)
    assert str(s) == NORMALIZED_SCHEMAS[text]
    assert_round_trips(s)


def test_parses_300_schemas_uncached():
    """300 distinct schemas parse without the cache and print back as given (their speed, about a
    millisecond, is measured by benchmarks/bench_schema.py: no timed assertions in tests)."""
    texts = [
        t.replace("::", f"{i}::", 1) for i in range(5) for t in CANONICAL_SCHEMAS + list(NORMALIZED_SCHEMAS)
    ]
    texts = texts[:300]
    assert len(texts) == 300
    uncached = parse_schema.__wrapped__
    parsed = [uncached(t) for t in texts]
    assert len({str(s) for s in parsed}) == len(set(texts))


def test_docstring_examples_run():
    result = doctest.testmod(schema_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10
    assert result.failed == 0


# ---------------------------------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------------------------------


def test_add_tensor_fields():
    s = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert (s.name, s.overload_name, s.namespace) == ("aten::add", "Tensor", "aten")
    assert (s.unqualified_name, s.operator_name) == ("add", "aten::add.Tensor")
    assert s.argument_names() == ["self", "other", "alpha"]
    assert isinstance(s.arguments, tuple) and len(s.returns) == 1
    assert not s.is_mutable and not s.is_vararg and not s.is_varret
    alpha = s.arguments[2]
    assert alpha.name == "alpha" and alpha.type == SchemaType("Scalar")
    assert alpha.default_value == 1 and type(alpha.default_value) is int
    assert alpha.has_default and alpha.kwarg_only and alpha.alias_info is None and not alpha.is_write
    assert not s.arguments[0].kwarg_only and not s.arguments[1].has_default
    ret = s.returns[0]
    assert ret.name == "" and ret.type.is_tensor and not ret.kwarg_only and not ret.has_default


@pytest.mark.parametrize(
    "text, name, overload, namespace",
    [
        ("foo(Tensor x) -> Tensor", "foo", "", ""),
        ("foo.bar(Tensor x) -> Tensor", "foo", "bar", ""),
        ("mylib::foo(Tensor x) -> Tensor", "mylib::foo", "", "mylib"),
        ("aten::__and__.Tensor(Tensor self, Tensor other) -> Tensor", "aten::__and__", "Tensor", "aten"),
    ],
)
def test_names(text, name, overload, namespace):
    s = parse_schema(text)
    assert (s.name, s.overload_name, s.namespace) == (name, overload, namespace)
    assert str(s) == text


def test_whitespace_is_insignificant_and_printing_is_canonical():
    s = parse_schema("  aten :: foo . out ( Tensor ( a ! ) [ ] x ,*,int [ 2 ] y = 1 )->( Tensor  r , ... ) ")
    assert str(s) == "aten::foo.out(Tensor(a!)[] x, *, int[2] y=1) -> (Tensor r, ...)"
    assert_round_trips(s)
    multi = parse_schema("aten::foo(Tensor x,\n          int y) ->\n Tensor")
    assert str(multi) == "aten::foo(Tensor x, int y) -> Tensor"


def test_parse_operator_name():
    assert parse_operator_name("aten::add.Tensor") == ("aten::add", "Tensor")
    assert parse_operator_name("add") == ("add", "")
    with pytest.raises(RuntimeError, match="function schema was given"):
        parse_operator_name("aten::add(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="expected eof but found 'x'"):
        parse_operator_name("aten::add x")


# ---------------------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, kind, optional, is_list, size, elem_optional, is_tensor, is_tensor_list",
    [
        ("Tensor", "Tensor", False, False, None, False, True, False),
        ("Tensor?", "Tensor", True, False, None, False, True, False),
        ("int", "int", False, False, None, False, False, False),
        ("SymInt?", "SymInt", True, False, None, False, False, False),
        ("int[]", "int", False, True, None, False, False, False),
        ("SymInt[]", "SymInt", False, True, None, False, False, False),
        ("int[2]", "int", False, True, 2, False, False, False),
        ("int[1]?", "int", True, True, 1, False, False, False),
        ("int[]?", "int", True, True, None, False, False, False),
        ("SymInt[]?", "SymInt", True, True, None, False, False, False),
        ("Tensor[]", "Tensor", False, True, None, False, False, True),
        ("Tensor?[]", "Tensor", False, True, None, True, False, True),
        ("Tensor?[]?", "Tensor", True, True, None, True, False, True),
        ("float[]?", "float", True, True, None, False, False, False),
        ("bool[3]", "bool", False, True, 3, False, False, False),
    ],
)
def test_types(text, kind, optional, is_list, size, elem_optional, is_tensor, is_tensor_list):
    t = parse_schema(f"f({text} x) -> ()").arguments[0].type
    assert (t.kind, t.optional, t.is_list, t.list_size, t.elem_optional) == (
        kind,
        optional,
        is_list,
        size,
        elem_optional,
    )
    assert (t.is_tensor, t.is_tensor_list) == (is_tensor, is_tensor_list)
    assert str(t) == text
    assert t == SchemaType(kind, optional, is_list, size, elem_optional)
    assert hash(t) == hash(SchemaType(kind, optional, is_list, size, elem_optional))


@pytest.mark.parametrize(
    "text",
    [
        "Tensor",
        "int",
        "SymInt",
        "float",
        "complex",
        "bool",
        "str",
        "Scalar",
        "ScalarType",
        "Layout",
        "MemoryFormat",
        "Device",
        "Generator",
        "Storage",
        "Stream",
        "QScheme",
        "Quantizer",
        "Capsule",
        "Any",
        "AnyClassType",
        "AnyEnumType",
        "NoneType",
    ],
)
def test_every_base_type(text):
    s = parse_schema(f"f({text} x, {text}? y, {text}[] z) -> {text}")
    assert [a.type.kind for a in s.arguments] == [text] * 3
    assert s.returns[0].type.kind == text
    assert str(s) == f"f({text} x, {text}? y, {text}[] z) -> {text}"


@pytest.mark.parametrize(
    "spelling, canonical",
    [("Dimname", "str"), ("ConstQuantizerPtr", "int"), ("DeviceIndex", "int"), ("None", "NoneType")],
)
def test_type_aliases_print_as_pytorch_does(spelling, canonical):
    s = parse_schema(f"f({spelling} x) -> ()")
    assert s.arguments[0].type.kind == canonical
    assert str(s) == f"f({canonical} x) -> ()"


def test_schema_type_is_immutable_and_validated():
    t = SchemaType("int", is_list=True, list_size=2)
    with pytest.raises(AttributeError):
        t.kind = "float"  # type: ignore[misc]
    assert t.element == SchemaType("int")
    assert SchemaType("Tensor", is_list=True, elem_optional=True).element == SchemaType(
        "Tensor", optional=True
    )
    with pytest.raises(TypeError, match="not a list"):
        _ = SchemaType("int").element
    with pytest.raises(ValueError, match="unknown kind"):
        SchemaType("Dimname")
    with pytest.raises(ValueError, match="is_list"):
        SchemaType("int", list_size=2)
    with pytest.raises(ValueError, match="is_list"):
        SchemaType("Tensor", elem_optional=True)
    assert len({SchemaType("int"), SchemaType("int"), SchemaType("int", optional=True)}) == 2


# ---------------------------------------------------------------------------------------------------
# Defaults
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "decl, value, printed",
    [
        ("int x=0", 0, "int x=0"),
        ("int x=-1", -1, "int x=-1"),
        ("SymInt x=-100", -100, "SymInt x=-100"),
        ("int x=9223372036854775807", 2**63 - 1, "int x=9223372036854775807"),
        ("int x=-9223372036854775808", -(2**63), "int x=-9223372036854775808"),
        ("float x=1e-05", 1e-05, "float x=1.0000000000000001e-05"),
        ("float x=0.5", 0.5, "float x=0.5"),
        ("float x=1", 1.0, "float x=1."),
        ("float x=-2.", -2.0, "float x=-2."),
        ("float x=1e+20", 1e20, "float x=1e+20"),
        ("float x=1E3", 1000.0, "float x=1000."),
        ("float x=-0.0", -0.0, "float x=-0."),
        ("float x=inf", math.inf, "float x=inf"),
        ("float x=-inf", -math.inf, "float x=-inf"),
        ("float? x=None", None, "float? x=None"),
        ("Scalar x=1", 1, "Scalar x=1"),
        ("Scalar x=1.5", 1.5, "Scalar x=1.5"),
        ("Scalar x=-1.", -1.0, "Scalar x=-1."),
        ("Scalar x=True", True, "Scalar x=True"),
        ("Scalar x=2j", 2j, "Scalar x=2.j"),
        ("complex x=1", complex(1, 0), "complex x=1."),
        ("complex x=-1.5j", complex(0, -1.5), "complex x=-1.5j"),
        ("bool x=True", True, "bool x=True"),
        ("bool x=False", False, "bool x=False"),
        ("bool? x=None", None, "bool? x=None"),
        ("str x='abc'", "abc", 'str x="abc"'),
        ('str x="abc"', "abc", 'str x="abc"'),
        ("str x=''", "", 'str x=""'),
        (r'str x="a\"b\'c\\d\n\t"', "a\"b'c\\d\n\t", r'str x="a\"b\'c\\d\n\t"'),
        (r"str x='\101\x42'", "AB", 'str x="AB"'),
        ("str x='é'", "é", r'str x="\303\251"'),
        ("str? x=None", None, "str? x=None"),
        ('Device x="cpu"', "cpu", 'Device x="cpu"'),
        ("Tensor x=None", None, "Tensor x=None"),
        ("Tensor? x=None", None, "Tensor? x=None"),
        ("Generator? g=None", None, "Generator? g=None"),
        ("int[] x=[]", [], "int[] x=[]"),
        ("int[] x=[0, 1]", [0, 1], "int[] x=[0, 1]"),
        ("int[] x=[1, 1]", [1, 1], "int[] x=[1, 1]"),
        ("int[2] x=1", [1, 1], "int[2] x=1"),
        ("int[2] x=[3, 3]", [3, 3], "int[2] x=3"),
        ("int[2] x=[0, 1]", [0, 1], "int[2] x=[0, 1]"),
        ("int[1] x=0", [0], "int[1] x=[0]"),
        ("int[2] x=[]", [], "int[2] x=[]"),
        ("int[2]? x=None", None, "int[2]? x=None"),
        ("int[2]? x=1", [1, 1], "int[2]? x=[1, 1]"),
        ("SymInt[2] x=1", [1, 1], "SymInt[2] x=[1, 1]"),
        ("float[] x=[1, 2.5]", [1.0, 2.5], "float[] x=[1., 2.5]"),
        ("bool[2] x=[True, False]", [True, False], "bool[2] x=[True, False]"),
        ("int reduction=Mean", 1, "int reduction=1"),
        ("int reduction=Sum", 2, "int reduction=2"),
        # Enum names become PyTorch's integer codes, printed as numbers (as str(torch schema) does).
        ("ScalarType dtype=long", 4, "ScalarType dtype=4"),
        ("ScalarType? dtype=float", 6, "ScalarType? dtype=6"),
        ("ScalarType dtype=6", 6, "ScalarType dtype=6"),
        ("Layout layout=strided", 0, "Layout layout=0"),
        ("MemoryFormat? memory_format=contiguous_format", 0, "MemoryFormat? memory_format=0"),
        ("MemoryFormat memory_format=channels_last", 2, "MemoryFormat memory_format=2"),
    ],
)
def test_defaults(decl, value, printed):
    s = parse_schema(f"f({decl}) -> ()")
    arg = s.arguments[0]
    assert arg.has_default
    assert arg.default_value == value
    assert type(arg.default_value) is type(value)
    if isinstance(value, float):
        assert math.copysign(1.0, arg.default_value) == math.copysign(1.0, value)
    assert str(arg) == printed
    assert_round_trips(s)


def test_nan_default_round_trips():
    s = parse_schema("f(float x=nan, Scalar y=-nan) -> ()")
    assert math.isnan(s.arguments[0].default_value) and math.isnan(s.arguments[1].default_value)
    assert str(s) == "f(float x=nan, Scalar y=nan) -> ()"
    assert_round_trips(s)


def test_enum_defaults_become_pytorch_codes_and_differ_from_strings():
    s = parse_schema("f(ScalarType a=long, str b='long') -> ()")
    a, b = s.arguments
    assert a.default_value == 4 and type(a.default_value) is int
    assert type(b.default_value) is str
    assert str(s) == 'f(ScalarType a=4, str b="long") -> ()'


def test_scalar_type_default_binds_as_dtype():
    import openreg
    from openreg._dispatch.binding import _default_value
    arg = parse_schema("f(ScalarType? dtype=long) -> ()").arguments[0]
    assert _default_value(arg) is openreg.int64


def test_none_default_is_a_real_default():
    s = parse_schema("f(Tensor? a=None, Tensor? b) -> ()")
    assert s.arguments[0].has_default and s.arguments[0].default_value is None
    assert not s.arguments[1].has_default and s.arguments[1].default_value is None
    no_default = Argument("a", SchemaType("Tensor", optional=True))
    assert s.arguments[0] != no_default
    assert s.arguments[0] == Argument("a", SchemaType("Tensor", optional=True), None, has_default=True)
    assert str(s.arguments[0]) == "Tensor? a=None" and str(no_default) == "Tensor? a"


def test_positional_without_default_after_default_is_allowed():
    # PyTorch's parser accepts this (callers must then pass the later argument by keyword).
    s = parse_schema("f(int a=1, int b) -> ()")
    assert [a.has_default for a in s.arguments] == [True, False]
    assert_round_trips(s)


def test_structural_equality_distinguishes_value_types():
    one_int = parse_schema("f(Scalar x=1) -> ()")
    one_float = parse_schema("f(Scalar x=1.) -> ()")
    one_bool = parse_schema("f(Scalar x=True) -> ()")
    assert len({one_int, one_float, one_bool}) == 3
    assert parse_schema("f(float x=0.) -> ()") != parse_schema("f(float x=-0.) -> ()")
    assert parse_schema("f(float x=1) -> ()") == parse_schema("f(float x=1.0) -> ()")
    assert parse_schema("f(int[2] x=1) -> ()") == parse_schema("f(int[2] x=[1, 1]) -> ()")


# ---------------------------------------------------------------------------------------------------
# Aliases
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, before, after, is_write, on_elements, alias_str",
    [
        ("Tensor(a) x", ("a",), ("a",), False, False, "a"),
        ("Tensor(a!) x", ("a",), ("a",), True, False, "a!"),
        ("Tensor(a!)? x", ("a",), ("a",), True, False, "a!"),
        ("Tensor(a -> *) x", ("a",), ("*",), False, False, "a -> *"),
        ("Tensor(a|b) x", ("a", "b"), ("a", "b"), False, False, "a|b"),
        ("Tensor(a! -> a|b) x", ("a",), ("a", "b"), True, False, "a! -> a|b"),
        ("Tensor(*) x", ("*",), ("*",), False, False, "*"),
        ("Tensor(*|a) x", ("*",), ("*",), False, False, "*"),
        ("Tensor(a!)[] x", ("a",), ("a",), True, True, "a!"),
        ("Tensor(a)?[] x", ("a",), ("a",), False, True, "a"),
        ("Tensor[](a!) x", ("a",), ("a",), True, False, "a!"),
        ("Tensor[](a)? x", ("a",), ("a",), False, False, "a"),
    ],
)
def test_alias_annotations(text, before, after, is_write, on_elements, alias_str):
    s = parse_schema(f"f({text}) -> ()")
    arg = s.arguments[0]
    info = arg.alias_info
    assert (info.before_set, info.after_set, info.is_write) == (before, after, is_write)
    assert arg.alias_on_elements == on_elements
    assert arg.is_write == is_write == s.is_mutable
    assert str(info) == alias_str
    assert_round_trips(s)


def test_alias_printing():
    assert str(parse_schema("f(Tensor(a!)[] x) -> Tensor(a)[]")) == "f(Tensor(a!)[] x) -> Tensor(a)[]"
    assert str(parse_schema("f(Tensor[](a!) x) -> ()")) == "f(Tensor[](a!) x) -> ()"
    assert str(parse_schema("f(Tensor(a -> a) x) -> ()")) == "f(Tensor(a) x) -> ()"
    assert str(parse_schema("f(Tensor(*|a) x) -> ()")) == "f(Tensor(*) x) -> ()"
    assert str(AliasInfo(("a",), ("b", "*"), True)) == "a! -> b|*"
    assert AliasInfo(("a",), ("*",)).is_wildcard_after and not AliasInfo(("a",), ("*",)).is_wildcard_before


def test_out_and_mutable():
    s = parse_schema("aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    assert s.is_mutable and s.arguments[1].is_out and s.arguments[1].is_write
    assert not s.arguments[0].is_out and s.returns[0].is_write
    positional = parse_schema(
        "inductor::_mm_plus_mm(Tensor a, Tensor b, Tensor c, Tensor d, Tensor(t!) out) -> Tensor(t!)"
    )
    assert positional.is_mutable and not positional.arguments[4].is_out
    view = parse_schema("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
    assert not view.is_mutable
    assert view.returns[0].alias_info == view.arguments[0].alias_info
    foreach = parse_schema(
        "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()"
    )
    assert foreach.is_mutable and foreach.arguments[0].alias_on_elements
    assert foreach.arguments[0].alias_info.before_set == ("a",)


# ---------------------------------------------------------------------------------------------------
# Returns and varargs
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "returns, printed, names",
    [
        ("Tensor", "Tensor", [""]),
        ("(Tensor)", "Tensor", [""]),
        ("Tensor out", "Tensor out", ["out"]),
        ("()", "()", []),
        ("(Tensor, Tensor)", "(Tensor, Tensor)", ["", ""]),
        ("(Tensor values, Tensor indices)", "(Tensor values, Tensor indices)", ["values", "indices"]),
        (
            "(Tensor(a!) values, Tensor(b!) indices)",
            "(Tensor(a!) values, Tensor(b!) indices)",
            ["values", "indices"],
        ),
        ("(Tensor, int, float[], str?)", "(Tensor, int, float[], str?)", ["", "", "", ""]),
        ("Tensor[]", "Tensor[]", [""]),
        ("...", "...", []),
        ("(...)", "...", []),
        ("(Tensor, ...)", "(Tensor, ...)", [""]),
    ],
)
def test_returns(returns, printed, names):
    s = parse_schema(f"f(Tensor x) -> {returns}")
    assert str(s) == f"f(Tensor x) -> {printed}"
    assert [r.name for r in s.returns] == names
    assert all(not r.kwarg_only and not r.has_default for r in s.returns)
    assert s.is_varret == ("..." in returns)
    assert_round_trips(s)


@pytest.mark.parametrize(
    "text, printed, vararg, varret",
    [
        ("f(...) -> ...", "f(...) -> ...", True, True),
        ("f(Tensor x, ...) -> (Tensor, ...)", "f(Tensor x, ...) -> (Tensor, ...)", True, True),
        ("f(*, Tensor x, ...) -> ()", "f(*, Tensor x, ...) -> ()", True, False),
        ("f(Tensor x) -> ...", "f(Tensor x) -> ...", False, True),
    ],
)
def test_varargs(text, printed, vararg, varret):
    s = parse_schema(text)
    assert (s.is_vararg, s.is_varret) == (vararg, varret)
    assert str(s) == printed
    assert_round_trips(s)


def test_kwarg_only_marker_without_following_args():
    s = parse_schema("f(Tensor x, *) -> ()")
    assert str(s) == "f(Tensor x) -> ()"
    assert s == parse_schema("f(Tensor x) -> ()")


# ---------------------------------------------------------------------------------------------------
# Objects, equality, hashing
# ---------------------------------------------------------------------------------------------------


def test_schema_equality_and_hash():
    a = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    b = parse_schema("aten::add.Tensor( Tensor self , Tensor other , * , Scalar alpha = 1 )->Tensor")
    c = parse_schema("aten::add.Tensor(Tensor self, Tensor other, Scalar alpha=1) -> Tensor")
    d = parse_schema("aten::add.Scalar(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert a == b and hash(a) == hash(b)
    assert a != c and a != d
    assert len({a, b, c, d}) == 3
    assert a != "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert repr(a) == f"FunctionSchema({str(a)!r})"


def test_schema_built_by_hand_equals_parsed():
    built = FunctionSchema(
        "mylib::foo",
        "out",
        [
            Argument("x", SchemaType("Tensor")),
            Argument("n", SchemaType("int", is_list=True, list_size=2), (1, 1), has_default=True),
            Argument(
                "out", SchemaType("Tensor"), kwarg_only=True, alias_info=AliasInfo(("a",), ("a",), True)
            ),
        ],
        [Argument("", SchemaType("Tensor"), alias_info=AliasInfo(("a",), ("a",), True))],
    )
    assert isinstance(built.arguments, tuple)
    text = "mylib::foo.out(Tensor x, int[2] n=1, *, Tensor(a!) out) -> Tensor(a!)"
    assert str(built) == text
    assert parse_schema(text) == built


def test_objects_are_immutable():
    s = parse_schema("f(Tensor x) -> Tensor")
    with pytest.raises(AttributeError):
        s.name = "g"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.arguments[0].name = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        parse_schema("f(Tensor(a) x) -> ()").arguments[0].alias_info.is_write = True  # type: ignore[misc]


def test_argument_validation():
    with pytest.raises(ValueError, match="has_default"):
        Argument("x", SchemaType("int"), 3)
    with pytest.raises(ValueError, match="alias_on_elements"):
        Argument("x", SchemaType("Tensor"), alias_info=AliasInfo(("a",), ("a",)), alias_on_elements=True)


def test_parse_schema_rejects_non_strings():
    with pytest.raises(TypeError):
        parse_schema(b"f() -> ()")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("f(int64_t x) -> ()", ["Use `SymInt` or `int` instead of `int64_t`"]),
        ("f(double x) -> ()", ["Use `float` instead of `double`"]),
        ("f(foo x) -> ()", ["Unknown type name 'foo'", "unknown type specifier"]),
        ("f(Tensor x) Tensor", ["expected '->' but found 'Tensor' here"]),
        ("f(Tensor x) -> ", ["expected a type but found 'eof' here"]),
        ("f(Tensor x -> Tensor", ["expected ',' or ')' but found '->' here"]),
        ("f(Tensor x)) -> Tensor", ["expected '->' but found ')' here"]),
        ("f((Tensor x) -> Tensor", ["tuple types are not supported"]),
        ("f(Tensor x) -> (Tensor, Tensor", ["expected ',' or ')' but found 'eof' here"]),
        ("f(Tensor(a x) -> ()", ["expected ')' but found 'x' here"]),
        ("f(Tensor x) -> Tensor )", ["expected eof but found ')' here"]),
        ("f(Tensor x) -> Tensor y z", ["expected eof but found 'z' here"]),
        ("f(Tensor x) -> Tensor y=1", ["expected eof but found '=' here"]),
        ("f(Tensor) -> ()", ["expected argument name but found ')' here"]),
        ("f(Tensor None) -> ()", ["expected argument name but found 'None' here"]),
        ("f(Tensor x,) -> ()", ["expected a type but found ')' here"]),
        ("f(int[x] y) -> ()", ["expected ']' or a list size but found 'x' here"]),
        ("f(int[1.5] y) -> ()", ["expected an integer list size but found '1.5' here"]),
        ("f(int[100000] y) -> ()", ["list size 100000 is too large"]),
        ("f(bool x=1) -> ()", ["expected True or False", "'x'", "but found '1' here"]),
        ("f(int x=1.5) -> ()", ["expected an integer default for argument 'x'", "found '1.5'"]),
        ("f(int x=True) -> ()", ["expected an integer default", "found 'True'"]),
        ("f(int x=99999999999999999999) -> ()", ["out of the int64 range"]),
        ("f(int x=9223372036854775808) -> ()", ["out of the int64 range"]),
        ("f(int x='a') -> ()", ["expected an integer default", "found ''a''"]),
        ("f(int x=-) -> ()", ["expected an integer default", "found ')'"]),
        ("f(float x='a') -> ()", ["expected a float default", "found ''a''"]),
        ("f(float x=True) -> ()", ["expected a float default", "found 'True'"]),
        ("f(float x=1j) -> ()", ["expected a float default"]),
        ("f(Scalar x='a') -> ()", ["expected a number default"]),
        ("f(str x=1) -> ()", ["expected a quoted string", "found '1'"]),
        ("f(Device x=cpu) -> ()", ["expected a quoted string", "found 'cpu'"]),
        ("f(Tensor x=1) -> ()", ["expected None as the default of Tensor argument 'x'"]),
        ("f(Tensor[] x=None) -> ()", ["None is only a default for optional types such as Tensor[]?"]),
        ("f(int x=None) -> ()", ["expected a default of type int", "found 'None'"]),
        ("f(ScalarType x=foo) -> ()", ["expected a ScalarType name", "found 'foo'"]),
        ("f(Layout x=long) -> ()", ["expected a Layout name", "found 'long'"]),
        ("f(int[] x=1) -> ()", ["expected a list default such as [] or [0, 1]", "found '1'"]),
        ("f(int[] x=[1.5]) -> ()", ["expected an integer default", "found '1.5'"]),
        ("f(int[] x=[1 2]) -> ()", ["expected ',' or ']' but found '2'"]),
        ("f(Tensor[] x=[]) -> ()", ["lists are only supported for float, int"]),
        ("f(int?[] x=[]) -> ()", ["lists are only supported for float, int"]),
        ("f(Tensor x, int x) -> ()", ["duplicate argument name 'x'"]),
        ("f(Tensor x) -> (Tensor a, Tensor a)", ["duplicate return name 'a'"]),
        ("f(..., Tensor x) -> ()", ["... must be the last element of the argument list"]),
        ("f(Tensor x) -> (..., Tensor)", ["... must be the last element of the return list"]),
        ("f(int x=1, ...) -> ()", ["schemas with vararg (...) can't have default value args"]),
        ("f.default(Tensor x) -> ()", ["default is not a legal overload name for aten operators"]),
        ("f.__foo(Tensor x) -> ()", ["__foo is not a legal overload name"]),
        ("aten::add.Tensor", ["only the operator name was given"]),
        ("aten::(Tensor x) -> ()", ["expected operator name but found '('"]),
        ("aten::add.(Tensor x) -> ()", ["expected overload name but found '('"]),
        ("f(str x='abc) -> ()", ["unterminated string literal"]),
        ("f(Tensor x) -> Tensor $", ["unexpected character '$'"]),
        (r"f(str x='\q') -> ()", ["invalid escape sequence '\\q'"]),
        ("f(int[][] x) -> ()", ["nested list types are not supported"]),
        ("f(Dict(str, Tensor) x) -> ()", ["the type 'Dict' is not supported"]),
        ("f(Tensor! x) -> ()", ["'Tensor!' shorthand is not supported"]),
        ("f(Tensor(a)[](b) x) -> ()", ["alias annotations on both a list and its elements"]),
        ("f(Tensor() x) -> ()", ["expected alias set name or '*' but found ')'"]),
        ("f(Tensor?(a) x) -> ()", ["expected argument name but found '('"]),
        ("", ["expected operator name but found 'eof'"]),
    ],
)
def test_errors(text, words):
    with pytest.raises(RuntimeError) as info:
        parse_schema(text)
    assert isinstance(info.value, SchemaParseError)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


@pytest.mark.parametrize(
    "text, token",
    [
        ("aten::foo(Tensor self) Tensor", "Tensor"),
        ("aten::foo(int64_t x) -> ()", "int64_t"),
        ("aten::foo(Tensor x, int x) -> ()", "x"),
        ("aten::foo(bool keepdim=1) -> ()", "1"),
    ],
)
def test_error_points_at_the_offending_token(text, token):
    with pytest.raises(RuntimeError) as info:
        parse_schema(text)
    lines = str(info.value).splitlines()
    assert lines[-2] == text
    caret = lines[-1]
    assert caret.endswith(" <--- HERE")
    column = text.rindex(token)
    assert caret.index("~") == column
    assert caret.count("~") == len(token)


def test_error_on_a_later_line_shows_that_line():
    with pytest.raises(RuntimeError) as info:
        parse_schema("aten::foo(Tensor x,\n  foo y) -> ()")
    assert str(info.value).splitlines()[-2:] == ["  foo y) -> ()", "  ~~~ <--- HERE"]


# ---------------------------------------------------------------------------------------------------
# Property-based tests
# ---------------------------------------------------------------------------------------------------

KINDS = sorted(schema_module.BASE_KINDS)
ENUM_NAMES = {k: sorted(v) for k, v in schema_module._ENUM_NAMES.items()}
LIST_DEFAULT_KINDS = ("int", "SymInt", "float", "bool", "complex")

_IDENT_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
identifiers = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from(_IDENT_START),
    st.text(_IDENT_START + "0123456789", max_size=6),
).filter(lambda s: s not in ("True", "False", "None"))
int64s = st.integers(min_value=-(2**63), max_value=2**63 - 1)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
any_floats = st.floats()  # includes inf, -inf, nan and -0.0
alias_sets = st.lists(
    st.sampled_from(["a", "b", "c", "alias2", "*"]), min_size=1, max_size=3, unique=True
).map(lambda names: tuple(names[: names.index("*") + 1]) if "*" in names else tuple(names))


@st.composite
def alias_infos(draw):
    before = draw(alias_sets)
    after = draw(st.one_of(st.just(before), alias_sets))
    return AliasInfo(before, after, draw(st.booleans()))


def scalar_values(kind):
    if kind in ("int", "SymInt"):
        return int64s
    if kind == "float":
        return any_floats
    if kind == "complex":
        return st.one_of(finite_floats.map(complex), finite_floats.map(lambda x: complex(0.0, x)))
    if kind == "bool":
        return st.booleans()
    if kind == "Scalar":
        return st.one_of(int64s, any_floats, st.booleans(), finite_floats.map(lambda x: complex(0.0, x)))
    if kind in ("str", "Device"):
        return st.text(max_size=12)
    if kind in ENUM_NAMES:
        return int64s
    return st.nothing()


@st.composite
def arguments(draw, kwarg_only=False, allow_default=True):
    kind = draw(st.sampled_from(KINDS))
    is_list = draw(st.booleans())
    size = draw(st.one_of(st.none(), st.integers(0, 4))) if is_list else None
    typ = SchemaType(
        kind,
        optional=draw(st.booleans()),
        is_list=is_list,
        list_size=size,
        elem_optional=is_list and draw(st.booleans()),
    )
    alias = draw(st.one_of(st.none(), alias_infos()))
    on_elements = alias is not None and is_list and draw(st.booleans())

    choices = [st.none()]  # no default
    if typ.optional or (not is_list and kind in ("Tensor", "Generator", "Quantizer", "NoneType")):
        choices.append(st.just(("default", None)))
    if not is_list and kind not in ("Tensor", "Generator", "Quantizer", "NoneType"):
        choices.append(scalar_values(kind).map(lambda v: ("default", v)))
    if is_list and kind in LIST_DEFAULT_KINDS and not typ.elem_optional:
        length = st.integers(0, 4) if size is None else st.one_of(st.just(size), st.integers(0, 4))
        choices.append(
            length.flatmap(lambda n: st.lists(scalar_values(kind), min_size=n, max_size=n)).map(
                lambda v: ("default", tuple(v))
            )
        )
    default = draw(st.one_of(*choices)) if allow_default else None
    return Argument(
        "",  # named by schemas(), which keeps names unique
        typ,
        default[1] if default else None,
        default is not None,
        kwarg_only,
        alias,
        on_elements,
    )


def named(arg, name):
    return Argument(
        name,
        arg.type,
        arg.default_value,
        arg.has_default,
        arg.kwarg_only,
        arg.alias_info,
        arg.alias_on_elements,
    )


@st.composite
def schemas(draw):
    name = draw(identifiers)
    if draw(st.booleans()):
        name = f"{draw(identifiers)}::{name}"
    overload = draw(
        st.one_of(st.just(""), identifiers.filter(lambda s: s != "default" and not s.startswith("__")))
    )
    positional = draw(st.lists(arguments(), max_size=4))
    keyword = draw(st.lists(arguments(kwarg_only=True), max_size=3))
    rets = draw(st.lists(arguments(allow_default=False), max_size=3))
    names = draw(st.lists(identifiers, min_size=len(positional + keyword), max_size=7, unique=True))
    args = [named(a, n) for a, n in zip(positional + keyword, names)]
    ret_names = draw(st.lists(st.one_of(st.just(""), identifiers), min_size=len(rets), max_size=len(rets)))
    real_names = [n for n in ret_names if n]
    assume(len(real_names) == len(set(real_names)))
    rets = [named(r, n) for r, n in zip(rets, ret_names)]
    is_vararg = not any(a.has_default for a in args) and draw(st.booleans())
    return FunctionSchema(name, overload, args, rets, is_vararg, draw(st.booleans()))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas())
def test_random_schemas_round_trip(s):
    text = str(s)
    parsed = parse_schema(text)
    assert parsed == s, text
    assert hash(parsed) == hash(s)
    assert str(parsed) == text
    assert parsed.argument_names() == [a.name for a in s.arguments]
    assert parsed.is_mutable == any(a.is_write for a in s.arguments)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(), st.data())
def test_random_whitespace_between_tokens_does_not_matter(s, data):
    # Re-join the tokens of the canonical text with random whitespace (string literals stay intact).
    tokens = schema_module._TOKEN_RE.findall(str(s))
    gaps = data.draw(
        st.lists(st.sampled_from(["", " ", "  ", "\n", "\t"]), min_size=len(tokens), max_size=len(tokens))
    )
    pieces = []
    for tok, gap in zip(tokens, gaps):
        needs_space = (
            pieces
            and (pieces[-1][-1:].isalnum() or pieces[-1][-1:] == "_")
            and (tok[0].isalnum() or tok[0] == "_")
        )
        pieces.append((gap or " ") if needs_space else gap)
        pieces.append(tok)
    assert parse_schema("".join(pieces)) == s


grammar_soup = st.lists(
    st.sampled_from(
        [
            "aten",
            "::",
            "foo",
            ".",
            "out",
            "(",
            ")",
            "[",
            "]",
            "?",
            "!",
            "*",
            "...",
            "->",
            ",",
            "=",
            "|",
            "-",
            "Tensor",
            "int",
            "SymInt",
            "float",
            "Scalar",
            "ScalarType",
            "str",
            "x",
            "y",
            "a",
            "1",
            "2.5",
            "1e5",
            "3j",
            "None",
            "True",
            "'s'",
            '"\\n"',
            "long",
            "inf",
            " ",
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.one_of(grammar_soup, st.text(max_size=40)))
def test_arbitrary_text_parses_or_raises_runtime_error(text):
    try:
        s = parse_schema(text)
    except RuntimeError as e:
        assert isinstance(e, SchemaParseError)
        assert str(e)
    else:
        assert parse_schema(str(s)) == s
