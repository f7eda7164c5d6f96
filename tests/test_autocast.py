"""Autocast through the dispatcher: keys, policies per device, nesting, cache, gradients, custom ops."""
import re
import warnings

import numpy as np
import pytest
from device_params import needs_device

import openreg
from openreg._dispatch import dispatcher
from openreg._dispatch.keys import DispatchKey
from openreg.amp import policy
from openreg.amp import state as amp_state

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="compares with PyTorch (not installed)")

DEV = "privateuseone"


def test_key_priority_as_pytorch():
    # PyTorch: ... ADInplaceOrView < Autograd* < AutocastCPU < AutocastPrivateUse1 < PythonTLSSnapshot
    K = DispatchKey
    assert K.AutogradMeta < K.AutocastCPU < K.AutocastPrivateUse1 < K.PythonTLSSnapshot
    assert openreg.ones(1)._ks >> K.AutocastCPU & 1


def test_disabled_by_default_and_no_effect():
    assert not openreg.is_autocast_enabled("cpu")
    a = openreg.ones(2, 2)
    assert (a @ a).dtype is openreg.float32


def test_cpu_policies():
    a = openreg.randn(3, 3)
    b = a.bfloat16()
    with openreg.autocast("cpu"):
        assert openreg.is_autocast_enabled("cpu") and openreg.get_autocast_dtype("cpu") is openreg.bfloat16
        assert openreg.mm(a, a).dtype is openreg.bfloat16
        assert openreg.matmul(a, b).dtype is openreg.bfloat16
        assert openreg.addmm(a, a, a).dtype is openreg.bfloat16
        assert openreg.cat([a, b]).dtype is openreg.float32          # promote
        assert openreg.stack([b, b]).dtype is openreg.bfloat16
        assert openreg.prod(b).dtype is openreg.float32              # fp32 on CPU
        assert openreg.exp(b).dtype is openreg.bfloat16              # not on the CPU list
        assert openreg.mm(a.double(), a.double()).dtype is openreg.float64   # float64 is never cast
    assert not openreg.is_autocast_enabled("cpu")


def test_nesting_disabled_region_and_dtype():
    a = openreg.randn(2, 2)
    with openreg.autocast("cpu"):
        with openreg.autocast("cpu", enabled=False):
            assert openreg.mm(a, a).dtype is openreg.float32
            with openreg.autocast("cpu", dtype=openreg.float16):
                assert openreg.mm(a, a).dtype is openreg.float16
            assert not openreg.is_autocast_enabled("cpu")
        assert openreg.mm(a, a).dtype is openreg.bfloat16
        assert openreg.get_autocast_dtype("cpu") is openreg.bfloat16


def test_decorator_and_amp_alias():
    @openreg.amp.autocast("cpu")
    def f(x):
        return x @ x
    assert f(openreg.ones(2, 2)).dtype is openreg.bfloat16
    assert openreg.autocast is openreg.amp.autocast
    with pytest.raises(TypeError, match="requires a callable"):
        openreg.autocast("cpu")(3)


def test_gradients_flow_through_casts_in_original_dtype():
    w = openreg.randn(3, 3, requires_grad=True)
    x = openreg.randn(3, 3, dtype=openreg.float64).float().requires_grad_()
    with openreg.autocast("cpu"):
        y = openreg.mm(x, w)
    y.float().sum().backward()
    assert w.grad.dtype is openreg.float32 and x.grad.dtype is openreg.float32
    expected = x.detach().bfloat16().float().numpy().T @ np.ones((3, 3), np.float32)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=2e-2, atol=2e-2)
    assert y.grad_fn is not None and y.dtype is openreg.bfloat16


def test_weight_cache_for_leaf_parameters():
    w = openreg.randn(4, 4, requires_grad=True)
    x = openreg.randn(4, 4)
    seen = []
    with openreg.autocast("cpu"):
        openreg.mm(x, w)
        openreg.mm(x, w)
        seen.append(len(amp_state.state.cache))
        with openreg.autocast("cpu"):
            openreg.mm(x, w)
        seen.append(len(amp_state.state.cache))          # inner exit keeps the cache
    seen.append(len(amp_state.state.cache))              # outermost exit clears it
    assert seen == [1, 1, 0]
    with openreg.autocast("cpu", cache_enabled=False):
        openreg.mm(x, w)
        assert len(amp_state.state.cache) == 0
    with openreg.autocast("cpu"):
        openreg.mm(x, x.requires_grad_())                  # not a weight: x is cached too only if a leaf
        openreg.mm(x.detach(), w.detach())                 # no grad: not cached
    assert len(amp_state.state.cache) == 0


def test_unsupported_dtype_warns_and_disables():
    with pytest.warns(UserWarning, match=re.escape("In CPU autocast, but the target dtype is not supported. "
                                                   "Disabling autocast.\nCPU Autocast only supports dtypes of "
                                                   "openreg.bfloat16, openreg.float16 currently.")):
        ctx = openreg.autocast("cpu", dtype=openreg.float64)
    with ctx:
        assert not openreg.is_autocast_enabled("cpu")
        a = openreg.ones(2, 2)
        assert (a @ a).dtype is openreg.float32


def test_bad_device_types():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        openreg.autocast(3)
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        openreg.autocast("nope")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'meta'"):
        openreg.autocast("meta")
    assert not openreg.is_autocast_enabled("cpu")


def test_cuda_without_rename_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ctx = openreg.autocast("cuda")
    with ctx:
        assert not openreg.is_autocast_enabled("cuda")


@needs_device
def test_device_policies_are_cudas():
    d = openreg.randn(4, 4, device=DEV)
    h = d.half()
    with openreg.autocast(DEV):
        assert openreg.get_autocast_dtype(DEV) is openreg.float16
        assert openreg.mm(d, d).dtype is openreg.float16
        assert openreg.softmax(h, 0).dtype is openreg.float32      # fp32_set_opt_dtype
        assert openreg.softmax(h, 0, dtype=openreg.float16).dtype is openreg.float16
        assert openreg.exp(h).dtype is openreg.float32
        assert openreg.sum(h).dtype is openreg.float32
        assert openreg.dot(d[0], h[0]).dtype is openreg.float32    # promote
        assert openreg.cat([d, h]).dtype is openreg.float32        # builtin promotion on CUDA
        c = openreg.randn(4, 4)                                    # CPU tensors are not the device's business
        assert openreg.mm(c, c).dtype is openreg.float32
    with openreg.autocast(DEV, dtype=openreg.bfloat16):
        assert openreg.mm(d, d).dtype is openreg.bfloat16


def test_custom_op_opts_in_through_library():
    with openreg.library._scoped_library("amp_demo", "FRAGMENT") as lib:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x + x, "CPU")

        def autocast_twice(x):
            with openreg.autocast("cpu", enabled=False):
                return openreg.ops.amp_demo.twice(x.to(openreg.bfloat16))
        lib.impl("twice", autocast_twice, "AutocastCPU")
        x = openreg.ones(2)
        assert openreg.ops.amp_demo.twice(x).dtype is openreg.float32
        with openreg.autocast("cpu"):
            assert openreg.ops.amp_demo.twice(x).dtype is openreg.bfloat16


def test_register_autocast():
    with openreg.library._scoped_library("amp_demo2", "FRAGMENT") as lib:
        lib.define("mul2(Tensor x, Tensor y) -> Tensor")
        lib.impl("mul2", lambda x, y: x * y, "CPU")
        openreg.library.register_autocast("amp_demo2::mul2", "cpu", openreg.float16, lib=lib)
        x = openreg.ones(2)
        with openreg.autocast("cpu"):
            assert openreg.ops.amp_demo2.mul2(x, x).dtype is openreg.float16
        assert openreg.ops.amp_demo2.mul2(x, x).dtype is openreg.float32


def test_custom_fwd_bwd():
    seen = {}

    class Scale(openreg.autograd.Function):
        @staticmethod
        @openreg.amp.custom_fwd(device_type="cpu", cast_inputs=openreg.float32)
        def forward(ctx, x, w):
            seen["fwd"] = (x.dtype, openreg.is_autocast_enabled("cpu"))
            ctx.save_for_backward(w)
            return x @ w

        @staticmethod
        @openreg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            seen["bwd"] = openreg.is_autocast_enabled("cpu")
            return g @ w.t(), None

    x = openreg.ones(2, 2, dtype=openreg.bfloat16, requires_grad=True)
    w = openreg.ones(2, 2)
    with openreg.autocast("cpu"):
        y = Scale.apply(x, w)
    assert y.dtype is openreg.float32
    y.sum().backward()
    assert seen == {"fwd": (openreg.float32, False), "bwd": False}
    assert x.grad.dtype is openreg.bfloat16
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        openreg.amp.custom_fwd(lambda ctx: None, device_type=None)


# -- against PyTorch ---------------------------------------------------------------------------------------
def _autocast_ops(key: str) -> set:
    found = set()
    for name in torch._C._dispatch_get_all_op_names():
        if name.startswith("aten::"):
            m = re.search(rf"^{key}: (.*)$", torch._C._dispatch_dump(name), re.MULTILINE)
            if m and "fallthrough" not in m.group(1):
                found.add(name[len("aten::"):])
    return found


@needs_torch
def test_policy_lists_name_pytorchs_autocast_ops():
    assert set(policy.CPU) == _autocast_ops("AutocastCPU")
    assert set(policy.CUDA) == _autocast_ops("AutocastCUDA")


def _spd(lib, a):
    """A symmetric positive definite matrix of ``a``'s dtype (for the factorizations)."""
    return a @ a.mT + 3 * lib.eye(a.shape[-1], dtype=a.dtype)


def _samples(lib, dt):
    """(op name, callable(lib, tensors...)) with float32/bfloat16 inputs built by ``dt``."""
    r = np.random.default_rng(0)

    def t(*shape, dtype="f"):
        return lib.tensor(r.standard_normal(shape).astype(np.float32), dtype=dt[dtype])
    return {
        "mm": lambda: lib.mm(t(3, 4), t(4, 2, dtype="b")),
        "matmul": lambda: lib.matmul(t(2, 3, 4), t(4, 2)),
        "addmm": lambda: lib.addmm(t(3, 2), t(3, 4, dtype="b"), t(4, 2)),
        "bmm": lambda: lib.bmm(t(2, 3, 4), t(2, 4, 5)),
        "dot": lambda: lib.dot(t(4), t(4)),
        "cat": lambda: lib.cat([t(2, 2), t(2, 2, dtype="b")]),
        "cat_low": lambda: lib.cat([t(2, 2, dtype="b"), t(2, 2, dtype="b")]),
        "stack": lambda: lib.stack([t(2, 2, dtype="b"), t(2, 2)]),
        "index_copy": lambda: t(3, 2).index_copy(0, lib.tensor([2, 0]), t(2, 2, dtype="b")),
        "prod": lambda: lib.prod(t(3, dtype="b")),
        "prod.dim_int": lambda: lib.prod(t(3, 2, dtype="b"), 1),
        "sum": lambda: lib.sum(t(3, dtype="b")),
        "softmax.int": lambda: lib.softmax(t(3, dtype="b"), 0),
        "log_softmax.int": lambda: lib.log_softmax(t(3, dtype="b"), 0),
        "exp": lambda: lib.exp(t(3, dtype="b")),
        "log": lambda: lib.log(t(3, dtype="b").abs()),
        "pow.Tensor_Scalar": lambda: lib.pow(t(3, dtype="b"), 2),
        "add.Tensor": lambda: lib.add(t(3), t(3, dtype="b")),
        "mul.Tensor": lambda: t(3, dtype="b") * t(3, dtype="b"),
        "outer": lambda: lib.outer(t(3), t(2, dtype="b")),
        "scaled_dot_product_attention": lambda: lib.nn.functional.scaled_dot_product_attention(
            t(1, 2, 3, 4), t(1, 2, 3, 4), t(1, 2, 3, 4, dtype="b")),
        "reciprocal": lambda: lib.reciprocal(t(3, dtype="b")),
        "rsqrt": lambda: lib.rsqrt(t(3, dtype="b").abs()),
        "mean": lambda: lib.mean(t(3, dtype="b")),
        "trace": lambda: lib.trace(t(3, 3, dtype="b")),
        "addbmm": lambda: lib.addbmm(t(3, 5), t(2, 3, 4), t(2, 4, 5, dtype="b")),
        "cdist": lambda: lib.cdist(t(3, 4, dtype="b"), t(2, 4, dtype="b")),
        "cholesky": lambda: lib.cholesky(_spd(lib, t(3, 3, dtype="b"))),
        "linalg_cholesky": lambda: lib.linalg.cholesky(_spd(lib, t(3, 3, dtype="b"))),
        "inverse": lambda: lib.inverse(_spd(lib, t(3, 3, dtype="b"))),
        "linalg_inv": lambda: lib.linalg.inv(_spd(lib, t(3, 3, dtype="b"))),
        "linalg_solve": lambda: lib.linalg.solve(_spd(lib, t(3, 3, dtype="b")), t(3, 2, dtype="b")),
        "linalg_eigh": lambda: lib.linalg.eigh(_spd(lib, t(3, 3, dtype="b")))[0],
        "linalg_eigvalsh": lambda: lib.linalg.eigvalsh(_spd(lib, t(3, 3, dtype="b"))),
        "linalg_eig": lambda: lib.linalg.eig(_spd(lib, t(3, 3, dtype="b")))[0],
        "linalg_eigvals": lambda: lib.linalg.eigvals(_spd(lib, t(3, 3, dtype="b"))),
        "cholesky_solve": lambda: lib.cholesky_solve(t(3, 2, dtype="b"), _spd(lib, t(3, 3, dtype="b"))),
        "cholesky_inverse": lambda: lib.cholesky_inverse(_spd(lib, t(3, 3, dtype="b"))),
        "linalg_householder_product": lambda: lib.linalg.householder_product(t(3, 2, dtype="b"), t(2, dtype="b")),
        "orgqr": lambda: lib.orgqr(t(3, 2, dtype="b"), t(2, dtype="b")),
        "geqrf": lambda: lib.geqrf(t(3, 3, dtype="b"))[0],
        "triangular_solve": lambda: lib.triangular_solve(t(3, 2, dtype="b"), _spd(lib, t(3, 3, dtype="b")))[0],
        "ormqr": lambda: lib.ormqr(t(3, 2, dtype="b"), t(2, dtype="b"), t(3, 2, dtype="b")),
        "qr": lambda: lib.qr(t(3, 3, dtype="b"))[0],
        "linalg_qr": lambda: lib.linalg.qr(t(3, 3, dtype="b"))[0],
        "svd": lambda: lib.svd(t(3, 3, dtype="b"))[1],
        "linalg_svd": lambda: lib.linalg.svd(t(3, 3, dtype="b"))[1],
        "linalg_svdvals": lambda: lib.linalg.svdvals(t(3, 3, dtype="b")),
        "pinverse": lambda: lib.pinverse(t(3, 2, dtype="b")),
        "quantile": lambda: lib.quantile(t(5, dtype="b"), t(2, dtype="b").sigmoid()),
        "quantile.scalar": lambda: lib.quantile(t(5, dtype="b"), 0.5),
        "nanquantile": lambda: lib.nanquantile(t(5, dtype="b"), t(2, dtype="b").sigmoid()),
        "nanquantile.scalar": lambda: lib.nanquantile(t(5, dtype="b"), 0.5),
        "conv1d": lambda: lib.nn.functional.conv1d(t(1, 2, 5), t(3, 2, 2, dtype="b")),
        "conv1d.padding": lambda: lib.nn.functional.conv1d(t(1, 2, 5), t(3, 2, 2, dtype="b"), padding="same"),
        "conv2d": lambda: lib.nn.functional.conv2d(t(1, 2, 4, 4), t(3, 2, 2, 2, dtype="b")),
        "conv2d.padding": lambda: lib.nn.functional.conv2d(t(1, 2, 4, 4), t(3, 2, 2, 2, dtype="b"), padding="same"),
        "conv3d": lambda: lib.nn.functional.conv3d(t(1, 2, 3, 3, 3), t(3, 2, 2, 2, 2, dtype="b")),
        "conv3d.padding": lambda: lib.nn.functional.conv3d(t(1, 2, 3, 3, 3), t(3, 2, 2, 2, 2, dtype="b"),
                                                           padding="same"),
        "conv_transpose3d.input": lambda: lib.nn.functional.conv_transpose3d(t(1, 2, 2, 2, 2),
                                                                             t(2, 3, 2, 2, 2, dtype="b")),
        "conv_transpose1d": lambda: lib.nn.functional.conv_transpose1d(t(1, 2, 5), t(2, 3, 2, dtype="b")),
        "conv_transpose2d.input": lambda: lib.nn.functional.conv_transpose2d(t(1, 2, 4, 4), t(2, 3, 2, 2, dtype="b")),
        "baddbmm": lambda: lib.baddbmm(t(2, 3, 5), t(2, 3, 4), t(2, 4, 5, dtype="b")),
        "reflection_pad1d": lambda: lib.nn.functional.pad(t(1, 2, 4, dtype="b"), (1, 1), mode="reflect"),
        "reflection_pad2d": lambda: lib.nn.functional.pad(t(1, 2, 4, 4, dtype="b"), (1, 1, 1, 1), mode="reflect"),
        "replication_pad1d": lambda: lib.nn.functional.pad(t(1, 2, 4, dtype="b"), (1, 1), mode="replicate"),
        "replication_pad2d": lambda: lib.nn.functional.pad(t(1, 2, 4, 4, dtype="b"), (1, 2, 1, 0),
                                                           mode="replicate"),
        "polar": lambda: lib.polar(t(3, dtype="b").abs(), t(3)),
        "view_as_complex": lambda: lib.view_as_complex(t(3, 2, dtype="b")),
        "binary_cross_entropy_with_logits": lambda: lib.binary_cross_entropy_with_logits(t(3, 4),
                                                                                     t(3, 4, dtype="b").sigmoid()),
        "binary_cross_entropy": lambda: lib.ops.aten.binary_cross_entropy(t(3, 4).sigmoid(), t(3, 4, dtype="b").sigmoid()),
        "mse_loss": lambda: lib.ops.aten.mse_loss(t(3, 4), t(3, 4, dtype="b")),
        "smooth_l1_loss": lambda: lib.ops.aten.smooth_l1_loss(t(3, 4), t(3, 4, dtype="b")),
        "huber_loss": lambda: lib.ops.aten.huber_loss(t(3, 4), t(3, 4, dtype="b")),
        "mkldnn_rnn_layer": lambda: lib.ops.aten.mkldnn_rnn_layer(t(3, 2, 4), t(8, 4, dtype="b"), t(8, 2), t(8), t(8),
                                                                  t(2, 2), t(2, 2), False, [], 2, 2, 1, True, False,
                                                                  False, True)[0],
    }


@needs_torch
def test_output_dtypes_match_pytorch_cpu_autocast():
    ours = _samples(openreg, {"f": openreg.float32, "b": openreg.bfloat16})
    theirs = _samples(torch, {"f": torch.float32, "b": torch.bfloat16})
    listed = [n for n in policy.CPU if dispatcher.find("aten::" + n) is not None]
    assert set(listed) <= set(ours), f"add samples for {sorted(set(listed) - set(ours))}"
    for name in ours:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with openreg.autocast("cpu"):
                got = ours[name]().dtype
            with torch.autocast("cpu"):
                want = theirs[name]().dtype
        assert str(got).split(".")[-1] == str(want).split(".")[-1], name


def _composite_samples(lib, dt):
    """Functions openreg writes in Python that PyTorch's autocast tables list: (name -> callable) on inputs of
    float32 ("f") and bfloat16 ("b") built by ``dt``."""
    r = np.random.default_rng(1)
    F = lib.nn.functional

    def t(*shape, dtype="b"):
        return lib.tensor(r.standard_normal(shape).astype(np.float32), dtype=dt[dtype])

    def p(*shape):
        return lib.tensor(r.uniform(0.1, 0.9, shape).astype(np.float32), dtype=dt["b"])
    idx = lib.tensor([1, 0, 3])
    sign = lib.tensor([1.0, -1.0, 1.0], dtype=dt["b"])
    return {
        "cross_entropy": lambda: F.cross_entropy(t(3, 5), idx),
        "cross_entropy_soft": lambda: F.cross_entropy(t(3, 5), p(3, 5), label_smoothing=0.1),
        "nll_loss": lambda: F.nll_loss(t(3, 5), idx),
        "mse_loss": lambda: F.mse_loss(t(3, 4), t(3, 4, dtype="f")),
        "l1_loss": lambda: F.l1_loss(t(3, 4), t(3, 4)),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(t(3, 4), t(3, 4)),
        "huber_loss": lambda: F.huber_loss(t(3, 4), t(3, 4)),
        "kl_div": lambda: F.kl_div(t(3, 4), p(3, 4), reduction="batchmean"),
        "binary_cross_entropy": lambda: F.binary_cross_entropy(p(3, 4), p(3, 4)),
        "binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(t(3, 4), p(3, 4)),
        "cosine_embedding_loss": lambda: F.cosine_embedding_loss(t(3, 4), t(3, 4), sign),
        "hinge_embedding_loss": lambda: F.hinge_embedding_loss(t(3, 4), t(3, 4).sign()),
        "poisson_nll_loss": lambda: F.poisson_nll_loss(t(3, 4), p(3, 4)),
        "margin_ranking_loss": lambda: F.margin_ranking_loss(t(3), t(3), sign),
        "soft_margin_loss": lambda: F.soft_margin_loss(t(3, 4), t(3, 4).sign()),
        "triplet_margin_loss": lambda: F.triplet_margin_loss(t(3, 4), t(3, 4), t(3, 4)),
        "multi_margin_loss": lambda: F.multi_margin_loss(t(3, 5), idx),
        "ctc_loss": lambda: F.ctc_loss(t(6, 2, 4, dtype="f").log_softmax(2).to(dt["b"]), lib.tensor([[1, 2], [3, 1]]), lib.tensor([6, 5]),
                                       lib.tensor([2, 2])),
        "grid_sample": lambda: F.grid_sample(t(1, 2, 4, 4), t(1, 3, 3, 2, dtype="f").tanh(), align_corners=False),
        "avg_pool3d": lambda: F.avg_pool3d(t(1, 2, 4, 4, 4), 2),
        "adaptive_avg_pool3d": lambda: F.adaptive_avg_pool3d(t(1, 2, 4, 4, 4), 2),
        "fft_rfft": lambda: lib.fft.rfft(t(8)).abs(),
        "fft_fft2": lambda: lib.fft.fft2(t(4, 4)).abs(),
        "softmax": lambda: F.softmax(t(3, 5), -1),
        "log_softmax": lambda: F.log_softmax(t(3, 5), -1),
        "cosine_similarity": lambda: F.cosine_similarity(t(3, 4), t(3, 4)),
        "rms_norm": lambda: F.rms_norm(t(3, 4), (4,)),
        "prelu": lambda: F.prelu(t(3, 4, dtype="f"), t(1, dtype="f")),
    }


@needs_torch
def test_python_composites_follow_pytorch_cpu_autocast():
    """PyTorch's CPU autocast runs cross_entropy_loss, the other losses, grid_sampler, 3-d pooling and the FFTs in
    float32; openreg's Python forms of them used to compute in bfloat16 (build-nanogpt's loss under
    ``torch.autocast("cpu", bfloat16)`` came out rounded to bfloat16)."""
    ours = _composite_samples(openreg, {"f": openreg.float32, "b": openreg.bfloat16})
    theirs = _composite_samples(torch, {"f": torch.float32, "b": torch.bfloat16})
    for name in ours:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with openreg.autocast("cpu"):
                got = ours[name]()
            with torch.autocast("cpu"):
                want = theirs[name]()
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], name
        tol = 1e-5 if got.dtype is openreg.float32 else 8e-3   # bfloat16 results: within a rounding step
        np.testing.assert_allclose(got.float().detach().numpy(), want.float().detach().numpy(), rtol=tol,
                                   atol=1e-6, err_msg=name)


def test_python_composites_cpu_autocast_dtypes():
    s = _composite_samples(openreg, {"f": openreg.float32, "b": openreg.bfloat16})
    fp32 = {"cross_entropy", "nll_loss", "mse_loss", "kl_div", "binary_cross_entropy", "ctc_loss", "grid_sample",
            "avg_pool3d", "fft_rfft"}
    with openreg.autocast("cpu"):
        for name in fp32:
            assert s[name]().dtype is openreg.float32, name
        for name in ("softmax", "log_softmax", "cosine_similarity", "rms_norm"):   # not on the CPU lists
            assert s[name]().dtype is openreg.bfloat16, name
        assert s["prelu"]().dtype is openreg.bfloat16          # lower
    # the loss of bfloat16 logits is float32 arithmetic on them, not bfloat16 arithmetic
    logits = openreg.tensor(np.linspace(-3, 3, 15, dtype=np.float32).reshape(3, 5)).bfloat16()
    x = logits.float().numpy().astype(np.float64)
    ref = -(x - np.log(np.exp(x).sum(1, keepdims=True)))[np.arange(3), [1, 0, 3]].mean()
    with openreg.autocast("cpu"):
        got = openreg.nn.functional.cross_entropy(logits, openreg.tensor([1, 0, 3]))
    assert abs(got.item() - ref) < 1e-6


@needs_device
def test_python_composites_device_autocast():
    """On the device (PyTorch's CUDA lists): softmax/log_softmax get dtype=float32, so cross_entropy is float32;
    the listed losses are float32; binary_cross_entropy is banned; prelu runs in the lower precision."""
    s = _composite_samples(openreg, {"f": openreg.float32, "b": openreg.bfloat16})
    F = openreg.nn.functional
    with openreg.autocast(DEV, dtype=openreg.bfloat16):
        def on_dev(name):
            saved = openreg.get_default_device()
            openreg.set_default_device(DEV)
            try:
                return s[name]()
            finally:
                openreg.set_default_device(saved)
        for name in ("cross_entropy", "nll_loss", "mse_loss", "softmax", "log_softmax", "cosine_similarity",
                     "rms_norm", "binary_cross_entropy_with_logits", "smooth_l1_loss"):
            out = on_dev(name)
            assert out.device.type == DEV and out.dtype is openreg.float32, name
        assert on_dev("prelu").dtype is openreg.bfloat16
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            on_dev("binary_cross_entropy")
        x = openreg.randn(3, 5, device=DEV)
        assert F.softmax(x.bfloat16(), -1).dtype is openreg.float32
        assert F.softmax(x.cpu().bfloat16(), -1).dtype is openreg.bfloat16   # CPU tensors: the CPU list
