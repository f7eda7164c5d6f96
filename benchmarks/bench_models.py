"""Training steps of the example programs, attention and LSTM-cell microbenchmarks and a width-scaling table:
openreg on the CPU, openreg on the emulated device and PyTorch, single-threaded and with every thread,
interleaved in one process and printed as ratios (openreg / PyTorch; lower is better).

The GPT, CNN and LSTM models are the examples' own classes (``examples/train_*.py``); PyTorch runs the same
source with ``openreg`` read as ``torch``. Each figure is the median over interleaved rounds (one call of each
implementation per round, so load on a shared machine hits all columns alike); ``spread`` is the ratio of the
slowest to the fastest round of the openreg CPU column. PyTorch columns are skipped, with the reason, when it
is not installed.

    python benchmarks/bench_models.py [--quick] [--rounds N] [--threads 1,all]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import openreg

try:
    import torch
except ImportError as exc:  # PyTorch is optional
    torch, TORCH_MISSING = None, f"PyTorch not installed ({exc})"
else:
    TORCH_MISSING = ""


def load_example(name: str, lib):
    """The module ``examples/<name>.py`` with ``openreg`` bound to ``lib`` (openreg or torch)."""
    source = (ROOT / "examples" / f"{name}.py").read_text()
    if lib is not openreg:
        source = source.replace("openreg", lib.__name__)
    module = types.ModuleType(f"_bench_{name}_{lib.__name__}")
    exec(compile(source, str(ROOT / "examples" / f"{name}.py"), "exec"), module.__dict__)  # noqa: S102
    return module


def device_name() -> str | None:
    mod = getattr(openreg, "privateuseone", None)
    return "privateuseone" if mod is not None and mod.is_available() else None


# -- step builders: (lib, device) -> a function running one training step --------------------------------

def gpt_step(lib, device, quick):
    ex = load_example("train_gpt", lib)
    lib.manual_seed(0)
    vocab, block = 30, 32
    model = ex.GPT(vocab, block).to(device)
    opt = ex.configure_optimizer(model, lr=3e-3, weight_decay=0.1)
    x = lib.randint(0, vocab, (16, block), device=device)
    y = lib.randint(0, vocab, (16, block), device=device)

    def step():
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    return step


def cnn_step(lib, device, quick):
    ex = load_example("train_cnn", lib)
    lib.manual_seed(0)
    model = ex.ConvNet().to(device)
    opt = lib.optim.Adam(model.parameters(), lr=0.005)
    x = lib.randn(32, 1, 16, 16, device=device)
    y = lib.randint(0, 4, (32,), device=device)

    def step():
        loss = lib.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def lstm_step(lib, device, quick):
    ex = load_example("train_lstm", lib)
    lib.manual_seed(0)
    vocab, batch, bptt = 30, 16, 20
    model = ex.LSTMLanguageModel(vocab, 64).to(device)
    x = lib.randint(0, vocab, (bptt, batch), device=device)
    y = lib.randint(0, vocab, (bptt, batch), device=device)
    hidden = model.init_hidden(batch)

    def step():
        logits, _ = model(x, tuple(h.detach() for h in hidden))
        loss = lib.nn.functional.cross_entropy(logits.view(-1, vocab), y.reshape(-1))
        model.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        with lib.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-1.0)
    return step


def small_op(which):
    def build(lib, device, quick):
        x, y = lib.ones(16, device=device), lib.ones(16, device=device)
        return {"abs": lambda: x.abs(), "add": lambda: x + y, "mul": lambda: x * y,
                "view": lambda: x.view(4, 4)}[which]
    return build


def small_autograd(lib, device, quick):
    lib.manual_seed(0)
    a = lib.randn(8, 32, device=device).requires_grad_()
    b = lib.randn(8, 32, device=device)

    def step():
        (a * b).sigmoid().sum().backward()
    return step


def attention_step(shape):
    def build(lib, device, quick):
        lib.manual_seed(0)
        q, k, v = (lib.randn(*shape, device=device).requires_grad_() for _ in range(3))

        def step():
            lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
        return step
    return build


def lstm_cell_step(lib, device, quick):
    lib.manual_seed(0)
    cell = lib.nn.LSTMCell(64, 64).to(device)
    x = lib.randn(20, 16, 64, device=device)

    def step():
        h = c = lib.zeros(16, 64, device=device)
        for t in range(x.shape[0]):
            h, c = cell(x[t], (h, c))
        h.sum().backward()
    return step


def mlp_step(width):
    def build(lib, device, quick):
        lib.manual_seed(0)
        nn = lib.nn
        model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                              nn.Linear(width, 10)).to(device)
        opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = lib.randn(64, width, device=device)
        y = lib.randint(0, 10, (64,), device=device)

        def step():
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        return step
    return build


# -- timing -------------------------------------------------------------------------------------------------

def set_threads(n: int) -> None:
    openreg.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)


def interleaved(steps: dict, rounds: int) -> dict:
    """Per column: (median seconds per call, slowest/fastest round), timed in interleaved rounds."""
    for step in steps.values():   # warm up (first-call caches, allocator)
        step()
        step()
    per_round = {}
    for name, step in steps.items():   # calls per round: about 50 ms of work
        t0 = time.perf_counter()
        step()
        per_round[name] = max(1, min(5000, int(0.05 / max(time.perf_counter() - t0, 1e-6))))
    samples = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            n = per_round[name]
            t0 = time.perf_counter()
            for _ in range(n):
                step()
            samples[name].append((time.perf_counter() - t0) / n)
    return {name: (statistics.median(s), max(s) / min(s)) for name, s in samples.items()}


def measure(build, rounds: int, quick: bool) -> dict:
    steps = {"cpu": build(openreg, "cpu", quick)}
    dev = device_name()
    if dev is not None:
        steps["device"] = build(openreg, dev, quick)
    if torch is not None:
        steps["torch"] = build(torch, "cpu", quick)
    return interleaved(steps, rounds)


def fmt_row(name: str, res: dict) -> str:
    cpu, spread = res["cpu"]
    dev = res.get("device", (None,))[0]
    tt = res.get("torch", (None,))[0]
    cols = [f"{name:30}", f"{cpu * 1e3:9.3f}", f"{dev * 1e3:9.3f}" if dev else f"{'n/a':>9}",
            f"{tt * 1e3:9.3f}" if tt else f"{'n/a':>9}",
            f"{cpu / tt:7.2f}x" if tt else f"{'n/a':>8}", f"{dev / tt:7.2f}x" if tt and dev else f"{'n/a':>8}",
            f"{dev / cpu:7.2f}x" if dev else f"{'n/a':>8}", f"{spread:6.2f}"]
    return " ".join(cols)


HEADER = (f"{'case':30} {'cpu ms':>9} {'dev ms':>9} {'torch ms':>9} {'cpu/pt':>8} {'dev/pt':>8} "
          f"{'dev/cpu':>8} {'spread':>6}")


def cases(quick: bool) -> list:
    out = [(f"{op} (16 x f32)" if op != "view" else "view (16 -> 4x4)", small_op(op))
           for op in ("abs", "add", "mul", "view")]
    out += [("mul-sigmoid-sum-backward 8x32", small_autograd),
            ("GPT step (train_gpt)", gpt_step), ("CNN step (train_cnn)", cnn_step),
           ("LSTM LM step (train_lstm)", lstm_step),
           ("sdpa causal (8,4,64,16)", attention_step((8, 4, 64, 16)))]
    if not quick:
        out.append(("sdpa causal (4,8,256,64)", attention_step((4, 8, 256, 64))))
    out.append(("LSTMCell 20 steps b16 h64", lstm_cell_step))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI-size: fewer rounds, widths up to 256")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--threads", default="1,all", help="comma-separated thread counts ('all' = every core)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    all_threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    counts = [all_threads if t == "all" else int(t) for t in args.threads.split(",")]
    widths = [64, 128, 256] if args.quick else [64, 128, 256, 512, 1024]
    print(f"openreg {openreg.__version__} | torch {torch.__version__ if torch else 'n/a'} | {all_threads} cores | "
          f"device: {device_name() or 'n/a'} | median of {rounds} interleaved rounds")
    if TORCH_MISSING:
        print(f"(PyTorch columns skipped: {TORCH_MISSING})")
    for n in dict.fromkeys(counts):
        set_threads(n)
        print(f"\n== {n} thread{'s' if n > 1 else ''} ==")
        print(HEADER)
        for name, build in cases(args.quick):
            print(fmt_row(name, measure(build, rounds, args.quick)), flush=True)
        print("MLP scaling (3 layers, batch 64, width w, SGD momentum):")
        for w in widths:
            print(fmt_row(f"  width {w}", measure(mlp_step(w), rounds, args.quick)), flush=True)
    set_threads(all_threads)


if __name__ == "__main__":
    sys.exit(main())
