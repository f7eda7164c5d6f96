"""What PyTorch programs import at the top: openreg.distributed, nn.parallel, onnx, backends flags, compile and the
float32 matmul precision (issue #12 item 7)."""
from __future__ import annotations

import warnings

import pytest

import openreg
from openreg import nn

try:
    import torch
except ImportError:  # pragma: no cover - CI has no torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_distributed_reports_itself_unavailable():
    import openreg.distributed as dist
    from openreg.distributed import destroy_process_group, init_process_group  # nanoGPT's import line
    assert dist.is_available() is False and dist.is_initialized() is False
    with pytest.raises(RuntimeError, match="distributed training is not available yet in openreg"):
        init_process_group(backend="nccl")
    with pytest.raises(RuntimeError, match="distributed training is not available yet in openreg"):
        dist.new_group([0])
    for fn in (dist.get_rank, dist.get_world_size, dist.get_backend, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            fn()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(openreg.ones(1), op=dist.ReduceOp.SUM)
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        destroy_process_group()
    assert dist.Backend("GLOO") == dist.Backend.GLOO == "gloo"


def test_distributed_is_torchelastic_launched(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert openreg.distributed.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "1")
    assert openreg.distributed.is_torchelastic_launched() is True


def test_distributed_data_parallel_raises_and_data_parallel_runs_on_one_device():
    """(several devices: tests/test_data_parallel.py)"""
    from openreg.nn.parallel import DistributedDataParallel as DDP
    from openreg.nn.parallel.data_parallel import DataParallel
    with pytest.raises(RuntimeError, match="distributed training is not available yet in openreg"):
        DDP(nn.Linear(1, 1), device_ids=[0])
    assert DataParallel is nn.DataParallel
    if not openreg.privateuseone.is_available():
        pytest.skip("device not available")
    lin = nn.Linear(2, 3)
    dp = nn.DataParallel(lin, device_ids=[0])
    assert lin.weight.device.type == "privateuseone" and dp.module is lin
    out = dp(openreg.ones(4, 2))
    assert out.device.type == "privateuseone" and out.shape == (4, 3)
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    lin.cpu()
    with pytest.raises(RuntimeError, match="module must have its parameters and buffers on device"):
        dp(openreg.ones(1, 2))


def test_onnx_export_raises_naming_it():
    with pytest.raises(NotImplementedError, match="openreg.onnx.export"):
        openreg.onnx.export(nn.Linear(1, 1), (openreg.ones(1),), "m.onnx")
    assert openreg.onnx.is_in_onnx_export() is False


def test_backend_flags_are_settable():
    cudnn, matmul = openreg.backends.cudnn, openreg.backends.cuda.matmul
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (True, False, False, True)
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert openreg.backends.cudnn.benchmark and openreg.backends.cudnn.deterministic
        matmul.allow_tf32 = True
        assert openreg.get_float32_matmul_precision() == "high"
        matmul.allow_fp16_reduced_precision_reduction = False
        assert matmul.allow_fp16_reduced_precision_reduction is False
        with pytest.raises(AttributeError, match="Unknown attribute nope"):
            matmul.nope = 1
    finally:
        cudnn.benchmark = cudnn.deterministic = False
        matmul.allow_tf32 = False
        matmul.allow_fp16_reduced_precision_reduction = True
    assert openreg.get_float32_matmul_precision() == "highest"
    assert openreg.backends.mps.is_available() is False and openreg.backends.cuda.is_built() is False


def test_float32_matmul_precision():
    try:
        openreg.set_float32_matmul_precision("medium")
        assert openreg.get_float32_matmul_precision() == "medium" and openreg.backends.cuda.matmul.allow_tf32
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            openreg.set_float32_matmul_precision("fastest")
        assert "is not one of 'highest', 'high', or 'medium'" in str(w[0].message)
        assert openreg.get_float32_matmul_precision() == "medium"
    finally:
        openreg.set_float32_matmul_precision("highest")


def test_compile_returns_model_and_works_as_decorator():
    model = nn.Linear(2, 2)
    assert openreg.compile(model) is model

    @openreg.compile
    def f(x):
        return x * 3

    @openreg.compile(fullgraph=True, dynamic=False, backend="eager")
    def g(x):
        return x - 1

    assert f(openreg.ones(1)).tolist() == [3.0] and g(openreg.ones(1)).tolist() == [0.0]
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        openreg.compile(f, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        openreg.compile(f, mode="default", options={})
    with pytest.raises(AssertionError, match="A callable function is expected"):
        openreg.compile(5)
    model.compile()
    assert model(openreg.ones(2)).shape == (2,)


@needs_torch
def test_signatures_match_pytorch():
    import inspect
    mine = inspect.signature(openreg.compile).parameters
    theirs = inspect.signature(torch.compile).parameters
    assert [n for n in theirs if n in mine] == list(mine)
    assert {n: p.default for n, p in mine.items() if n != "backend"} == {
        n: theirs[n].default for n in mine if n != "backend"}
    for name in ("allow_tf32", "benchmark", "deterministic", "enabled"):
        assert getattr(openreg.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name


def test_inductor_config_and_compile_options():
    """karpathy/llm.c's train_gpt2.py imports torch._inductor.config and sets options before compiling."""
    from openreg._inductor import config
    assert config.coordinate_descent_tuning is False and config.triton.unique_kernel_names is True
    config.coordinate_descent_tuning = True
    try:
        assert config.get_config_copy()["coordinate_descent_tuning"] is True
    finally:
        config.coordinate_descent_tuning = False
    with pytest.raises(AttributeError, match="config.no_such_option does not exist"):
        config.no_such_option = 1
    with pytest.raises(AttributeError, match="config.triton.nope does not exist"):
        config.triton.nope = 1
    with config.patch({"triton.cudagraphs": True}), config.patch("max_autotune", True):
        assert config.triton.cudagraphs is True and config.max_autotune is True
    assert config.triton.cudagraphs is False and config.max_autotune is False

    @config.patch(fallback_random=True)
    def read():
        return config.fallback_random
    assert read() is True and config.fallback_random is False
    f = openreg.compile(lambda x: x + 1, options={"max_autotune": True, "triton.cudagraphs": False})
    assert f(openreg.ones(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="Unexpected optimization option nope, known options are"):
        openreg.compile(f, options={"nope": 1})
    with pytest.raises(RuntimeError, match="Unexpected type of attr max_autotune, got int should be bool"):
        openreg.compile(f, options={"max_autotune": 1})
    assert openreg.compile(f, backend="eager", options={"nope": 1}) is f   # only inductor reads the options


@needs_torch
def test_inductor_config_defaults_and_errors_match_pytorch():
    import torch._inductor.config as theirs

    import openreg._inductor.config as mine
    ours, ref = mine.get_config_copy(), theirs.get_config_copy()
    assert set(ours) <= set(ref), sorted(set(ours) - set(ref))
    assert {k: ours[k] for k in ours} == {k: ref[k] for k in ours}
    for opts in ({"nope": 1}, {"max_autotune": 1}, {"cpp.threads": "x"}):
        with pytest.raises(RuntimeError) as want:
            torch.compile(lambda x: x, options=opts)
        with pytest.raises(RuntimeError) as got:
            openreg.compile(lambda x: x, options=opts)
        assert str(got.value).split(",")[0] == str(want.value).split(",")[0]


def test_distributed_optim_needs_a_process_group():
    """llm.c's train_gpt2.py imports ZeroRedundancyOptimizer (used only with zero_stage=1 under torchrun)."""
    from openreg.distributed.optim import ZeroRedundancyOptimizer
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        ZeroRedundancyOptimizer([nn.Parameter(openreg.ones(2))], optimizer_class=openreg.optim.AdamW, lr=0.1)


def test_version_module():
    """llm.c prints torch.version.__version__; programs test torch.version.cuda / hip for a GPU build."""
    import openreg.version
    assert openreg.version.__version__ == openreg.__version__
    assert openreg.version.cuda is None and openreg.version.hip is None and openreg.version.debug is False
    assert all(hasattr(openreg.version, name) for name in ("cuda", "hip", "debug", "git_version"))
