"""Train a small character-level GPT on the openreg device (the emulated driver without a GPU; CPU if no device).

The corpus is synthetic: sentences drawn from a tiny grammar, so the next character is mostly determined by
the preceding ones. The model is a decoder-only transformer: token and position embeddings, pre-LayerNorm
blocks of causal self-attention (``scaled_dot_product_attention(is_causal=True)``) and a GELU MLP, a final
LayerNorm and an output head tied to the token embedding. It trains with AdamW (weight decay on matrices only,
two parameter groups), linear warmup then cosine learning-rate decay, and gradient-norm clipping, then samples
text with top-k filtering and ``multinomial``.

An untrained model starts near ln(vocab) = 3.3. The full run (``--steps 300``) reaches a training loss below
``TARGET_LOSS`` (0.75); the shortened run of the test suite (``--steps 40 --target 2.3``) checks that it gets
below 2.3. Exit status 1 if the target is not reached.

    python examples/train_gpt.py [--steps 300] [--device privateuseone] [--target 0.75]
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import openreg
import openreg.nn.functional as F
from openreg import nn

TARGET_LOSS = 0.75


def default_device() -> str:
    mod = getattr(openreg, "privateuseone", None)
    try:
        return "privateuseone" if mod is not None and mod.is_available() else "cpu"
    except Exception:  # noqa: BLE001 - a half-initialised device backend means: use the CPU
        return "cpu"


def make_corpus(n_sentences: int = 600) -> str:
    """Sentences from a small grammar, drawn with a seeded generator (same text on every run)."""
    subjects = ["the cat", "a dog", "my friend", "the old king", "one bird"]
    verbs = ["sees", "likes", "finds", "follows"]
    objects = ["the moon", "a red ball", "the river", "some bread", "her hat"]
    g = openreg.Generator().manual_seed(0)
    picks = openreg.randint(0, 1000, (n_sentences, 3), generator=g).tolist()
    return " ".join(f"{subjects[a % 5]} {verbs[b % 4]} {objects[c % 5]}." for a, b, c in picks)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        # (B, T, C) -> (B, heads, T, head_dim)
        q, k, v = (z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size: int, block_size: int, n_embd: int = 48, n_head: int = 4, n_layer: int = 2):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        self.head.weight = self.tok_emb.weight            # weight tying
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        pos = openreg.arange(t, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @openreg.no_grad()
    def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size:])
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                kth = openreg.topk(logits, min(top_k, logits.size(-1))).values[:, -1:]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            probs = F.softmax(logits, dim=-1)
            idx = openreg.cat([idx, openreg.multinomial(probs, 1)], dim=1)
        return idx


def configure_optimizer(model: nn.Module, lr: float, weight_decay: float):
    """AdamW with two groups: matrices (and embeddings) decay, biases and LayerNorm parameters do not."""
    params = {id(p): p for p in model.parameters()}.values()       # the tied weight once
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return openreg.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def cosine_with_warmup(warmup: int, total: int, min_ratio: float = 0.1):
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))
    return factor


def train(steps: int, device: str, batch_size: int = 16, block_size: int = 32) -> float:
    openreg.manual_seed(0)
    text = make_corpus()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = openreg.tensor([stoi[ch] for ch in text], dtype=openreg.int64)
    model = GPT(len(chars), block_size).to(device)
    opt = configure_optimizer(model, lr=3e-3, weight_decay=0.1)
    sched = openreg.optim.lr_scheduler.LambdaLR(opt, cosine_with_warmup(max(1, steps // 10), steps))
    g = openreg.Generator().manual_seed(1)
    loss = None
    for step in range(steps):
        ix = openreg.randint(0, data.numel() - block_size - 1, (batch_size,), generator=g).tolist()
        x = openreg.stack([data[i:i + block_size] for i in ix]).to(device)
        y = openreg.stack([data[i + 1:i + 1 + block_size] for i in ix]).to(device)
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 25 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {loss.item():.4f}  lr {sched.get_last_lr()[0]:.2e}")
    model.eval()
    start = openreg.tensor([[stoi["t"]]], device=device)
    sample = model.generate(start, 60, temperature=0.8, top_k=5)
    print("sample:", "".join(chars[i] for i in sample[0].tolist()))
    return loss.item()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--device", default=None)
    parser.add_argument("--target", type=float, default=TARGET_LOSS)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    final = train(args.steps, args.device or default_device())
    elapsed = time.perf_counter() - start
    print(f"final loss {final:.4f} (target < {args.target}); {args.steps} steps in {elapsed:.2f}s "
          f"({1000 * elapsed / max(1, args.steps):.1f} ms/step)")
    return 0 if final < args.target else 1


if __name__ == "__main__":
    sys.exit(main())
