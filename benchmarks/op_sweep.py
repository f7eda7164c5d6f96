"""Forward+backward time of ~45 common operators and layers, openreg CPU against PyTorch (per-thread CPU time, one
thread, median of 5 blocks), sorted by ratio: the operators that are slow far beyond the per-call overhead.

    python benchmarks/op_sweep.py [name substrings...]

Needs PyTorch (it is the reference); ``ci/bench`` does not run it.
"""
import statistics
import sys
import time

import numpy as np

import openreg

try:
    import torch
except ImportError:
    sys.exit("op_sweep.py compares with PyTorch: install torch first")
openreg.set_num_threads(1)
torch.set_num_threads(1)


def tm(fn):
    fn(); fn()
    t0 = time.thread_time(); n = 0
    while time.thread_time() - t0 < 0.03: fn(); n += 1
    v = []
    for _ in range(5):
        t0 = time.thread_time()
        for _ in range(n): fn()
        v.append((time.thread_time() - t0) / n)
    return statistics.median(v)
rng = np.random.default_rng(0)
def arr(*s): return rng.standard_normal(s).astype(np.float32)
def T(lib, a, rg=True):
    t = lib.tensor(a)
    return t.requires_grad_(rg) if rg else t
CASES = []
def case(name):
    def deco(fn): CASES.append((name, fn)); return fn
    return deco
# each case: fn(lib) -> zero-arg callable doing forward+backward
def fb(out_fn):
    def run():
        out = out_fn(); out.sum().backward() if out.requires_grad else None
    return run
X4 = arr(8, 16, 32, 32); X3 = arr(16, 32, 64); X2 = arr(256, 256)
@case("conv2d 3x3 pad1 (8,16,32,32)->32")
def _(lib):
    m = lib.nn.Conv2d(16, 32, 3, padding=1); x = T(lib, X4); return fb(lambda: m(x))
@case("conv2d depthwise 3x3 groups=16")
def _(lib):
    m = lib.nn.Conv2d(16, 16, 3, padding=1, groups=16); x = T(lib, X4); return fb(lambda: m(x))
@case("conv2d stride2 5x5")
def _(lib):
    m = lib.nn.Conv2d(16, 32, 5, stride=2, padding=2); x = T(lib, X4); return fb(lambda: m(x))
@case("conv_transpose2d 4x4 s2")
def _(lib):
    m = lib.nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1); x = T(lib, X4); return fb(lambda: m(x))
@case("conv1d k5 (16,32,64)")
def _(lib):
    m = lib.nn.Conv1d(32, 32, 5, padding=2); x = T(lib, X3); return fb(lambda: m(x))
@case("maxpool2d 2")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.max_pool2d(x, 2))
@case("maxpool2d 3 s2 p1")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.max_pool2d(x, 3, 2, 1))
@case("avgpool2d 2")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.avg_pool2d(x, 2))
@case("adaptive_avg_pool2d 1")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.adaptive_avg_pool2d(x, 1))
@case("adaptive_avg_pool2d 7")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.adaptive_avg_pool2d(x, 7))
@case("batchnorm2d train")
def _(lib):
    m = lib.nn.BatchNorm2d(16); x = T(lib, X4); return fb(lambda: m(x))
@case("batchnorm2d eval")
def _(lib):
    m = lib.nn.BatchNorm2d(16).eval(); x = T(lib, X4); return fb(lambda: m(x))
@case("groupnorm 4 groups")
def _(lib):
    m = lib.nn.GroupNorm(4, 16); x = T(lib, X4); return fb(lambda: m(x))
@case("instancenorm2d")
def _(lib):
    m = lib.nn.InstanceNorm2d(16, affine=True); x = T(lib, X4); return fb(lambda: m(x))
@case("layernorm 64")
def _(lib):
    m = lib.nn.LayerNorm(64); x = T(lib, X3); return fb(lambda: m(x))
@case("upsample nearest x2")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.interpolate(x, scale_factor=2, mode="nearest"))
@case("upsample bilinear x2")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))
@case("grid_sample bilinear")
def _(lib):
    x = T(lib, X4); g = T(lib, (arr(8, 32, 32, 2) * 0.5)); return fb(lambda: lib.nn.functional.grid_sample(x, g, align_corners=False))
@case("pixel_shuffle 2")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.pixel_shuffle(x, 2))
@case("dropout 0.5 (256,256)")
def _(lib):
    x = T(lib, X2); return fb(lambda: lib.nn.functional.dropout(x, 0.5))
@case("gelu (16,32,64)")
def _(lib):
    x = T(lib, X3); return fb(lambda: lib.nn.functional.gelu(x))
@case("silu")
def _(lib):
    x = T(lib, X3); return fb(lambda: lib.nn.functional.silu(x))
@case("softmax dim-1")
def _(lib):
    x = T(lib, X3); return fb(lambda: lib.softmax(x, -1) * x)
@case("embedding 1000x64 (16,32)")
def _(lib):
    m = lib.nn.Embedding(1000, 64); i = lib.tensor(rng.integers(0, 1000, (16, 32))); return fb(lambda: m(i))
@case("embedding_bag mean")
def _(lib):
    m = lib.nn.EmbeddingBag(1000, 64, mode="mean"); i = lib.tensor(rng.integers(0, 1000, (64, 8))); return fb(lambda: m(i))
@case("lstm 1 layer (20,16,64)")
def _(lib):
    m = lib.nn.LSTM(64, 64); x = T(lib, arr(20, 16, 64)); return fb(lambda: m(x)[0])
@case("gru 1 layer (20,16,64)")
def _(lib):
    m = lib.nn.GRU(64, 64); x = T(lib, arr(20, 16, 64)); return fb(lambda: m(x)[0])
@case("lstm bidirectional 2 layers")
def _(lib):
    m = lib.nn.LSTM(64, 64, 2, bidirectional=True); x = T(lib, arr(20, 16, 64)); return fb(lambda: m(x)[0])
@case("multihead attention (32,16,64) 4 heads")
def _(lib):
    m = lib.nn.MultiheadAttention(64, 4); x = T(lib, arr(32, 16, 64)); return fb(lambda: m(x, x, x)[0])
@case("transformer encoder layer")
def _(lib):
    m = lib.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0); x = T(lib, arr(32, 16, 64)); return fb(lambda: m(x))
@case("bmm (16,64,64)")
def _(lib):
    a = T(lib, arr(16, 64, 64)); b = T(lib, arr(16, 64, 64)); return fb(lambda: a @ b)
@case("index_select/gather")
def _(lib):
    x = T(lib, X2); i = lib.tensor(rng.integers(0, 256, (256, 16))); return fb(lambda: x.gather(1, i))
@case("advanced indexing x[idx]")
def _(lib):
    x = T(lib, X2); i = lib.tensor(rng.integers(0, 256, (128,))); return fb(lambda: x[i])
@case("masked_fill")
def _(lib):
    x = T(lib, X2); m = lib.tensor(rng.random((256, 256)) > 0.5); return fb(lambda: x.masked_fill(m, 0.0))
@case("cat + split")
def _(lib):
    a = T(lib, X2); b = T(lib, X2); return fb(lambda: lib.cat([a, b], 1).split(64, 1)[1])
@case("cumsum")
def _(lib):
    x = T(lib, X2); return fb(lambda: x.cumsum(1))
@case("sort/topk")
def _(lib):
    x = T(lib, X2); return fb(lambda: x.topk(8, 1)[0])
@case("mse_loss")
def _(lib):
    x = T(lib, X2); y = T(lib, arr(256, 256), False); return fb(lambda: lib.nn.functional.mse_loss(x, y))
@case("bce_with_logits")
def _(lib):
    x = T(lib, X2); y = T(lib, (arr(256, 256) > 0).astype(np.float32), False); return fb(lambda: lib.nn.functional.binary_cross_entropy_with_logits(x, y))
@case("ctc_loss small")
def _(lib):
    lp = T(lib, arr(30, 4, 10)); t = lib.tensor(rng.integers(1, 10, (4, 8)))
    il = lib.tensor([30] * 4); tl = lib.tensor([8] * 4)
    return fb(lambda: lib.nn.functional.ctc_loss(lp.log_softmax(2), t, il, tl))
@case("max_unpool2d")
def _(lib):
    x = T(lib, X4)
    def f():
        o, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        return lib.nn.functional.max_unpool2d(o, i, 2)
    return fb(f)
@case("fold/unfold")
def _(lib):
    x = T(lib, X4); return fb(lambda: lib.nn.functional.unfold(x, 3, padding=1))
@case("adam step 10 params 64k")
def _(lib):
    ps = [lib.nn.Parameter(lib.randn(256, 256)) for _ in range(10)]
    for p in ps: p.grad = lib.randn(256, 256)
    opt = lib.optim.Adam(ps, lr=1e-3)
    def f(): opt.step(); return lib.zeros(1)
    return f
@case("adamw step 10 params 64k")
def _(lib):
    ps = [lib.nn.Parameter(lib.randn(256, 256)) for _ in range(10)]
    for p in ps: p.grad = lib.randn(256, 256)
    opt = lib.optim.AdamW(ps, lr=1e-3)
    def f(): opt.step(); return lib.zeros(1)
    return f
sel = sys.argv[1:] 
rows = []
for name, build in CASES:
    if sel and not any(s in name for s in sel): continue
    try:
        fo = build(openreg); ft = build(torch)
        a = tm(fo); b = tm(ft)
        rows.append((a / b, name, a * 1e6, b * 1e6))
        print(f"{a/b:6.2f}x  {name:40} openreg {a*1e6:9.1f} us  torch {b*1e6:9.1f} us", flush=True)
    except Exception as e:  # noqa: BLE001 - a failing case is reported and the sweep goes on
        print(f"  ERR  {name}: {type(e).__name__}: {e}", flush=True)
print("\nsorted:")
for r, n, a, b in sorted(rows, reverse=True):
    print(f"{r:6.2f}x  {n:40} {a:9.1f} {b:9.1f}")
