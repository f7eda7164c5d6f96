"""Train an LSTM word-level language model on the openreg device (the emulated driver without a GPU; CPU if none).

The corpus is synthetic: sentences from a small grammar ("the cat sees the moon ."), tokenised into words. As
in PyTorch's word_language_model example, the token stream is cut into ``batch_size`` columns and trained with
truncated backpropagation through time: each step sees ``bptt`` tokens per column, and the LSTM state carried
to the next step is detached so gradients stop at the chunk boundary. The model is Embedding -> 2-layer LSTM
(dropout between layers) -> Dropout -> Linear whose weight is tied to the embedding; plain SGD with gradient
clipping (``clip_grad_norm_``) and a learning rate quartered when an epoch does not improve.

An untrained model starts near ln(vocab) = 3.3. The full run (``--epochs 6``) ends with a mean training loss of
the last epoch below ``TARGET_LOSS`` (1.2, close to the grammar's entropy); the test suite's shortened run
(``--epochs 3 --target 2.2``) checks that the third epoch's mean loss is below 2.2. Exit status 1 if the target
is not reached.

    python examples/train_lstm.py [--epochs 6] [--device privateuseone] [--target 1.2]
"""
from __future__ import annotations

import argparse
import sys
import time

import openreg
import openreg.nn.functional as F
from openreg import nn

TARGET_LOSS = 1.2


def default_device() -> str:
    mod = getattr(openreg, "privateuseone", None)
    try:
        return "privateuseone" if mod is not None and mod.is_available() else "cpu"
    except Exception:  # noqa: BLE001 - a half-initialised device backend means: use the CPU
        return "cpu"


def make_corpus(n_sentences: int = 1500) -> list[str]:
    subjects = ["the cat", "a dog", "my friend", "the old king", "one bird", "her brother"]
    verbs = ["sees", "likes", "finds", "follows", "hears"]
    objects = ["the moon", "a red ball", "the river", "some bread", "her hat", "the king"]
    g = openreg.Generator().manual_seed(0)
    picks = openreg.randint(0, 1000, (n_sentences, 3), generator=g).tolist()
    words: list[str] = []
    for a, b, c in picks:
        words += f"{subjects[a % 6]} {verbs[b % 5]} {objects[c % 6]} .".split()
    return words


def batchify(data, batch_size: int, device: str):
    """Cut the 1-d token stream into ``batch_size`` columns: shape (steps, batch_size)."""
    n = data.size(0) // batch_size
    return data[:n * batch_size].view(batch_size, n).t().contiguous().to(device)


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab: int, size: int, layers: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab, size)
        self.rnn = nn.LSTM(size, size, layers, dropout=dropout)
        self.decoder = nn.Linear(size, vocab)
        self.decoder.weight = self.encoder.weight      # tied input and output embeddings
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        self.layers, self.size = layers, size

    def forward(self, tokens, hidden):
        out, hidden = self.rnn(self.drop(self.encoder(tokens)), hidden)
        return self.decoder(self.drop(out)), hidden

    def init_hidden(self, batch_size: int):
        w = next(self.parameters())
        return (w.new_zeros(self.layers, batch_size, self.size), w.new_zeros(self.layers, batch_size, self.size))


def train(epochs: int, device: str, batch_size: int = 16, bptt: int = 20) -> float:
    openreg.manual_seed(0)
    words = make_corpus()
    vocab = sorted(set(words))
    stoi = {w: i for i, w in enumerate(vocab)}
    data = batchify(openreg.tensor([stoi[w] for w in words], dtype=openreg.int64), batch_size, device)
    model = LSTMLanguageModel(len(vocab), 64).to(device)
    lr, best = 10.0, float("inf")
    epoch_loss = float("nan")
    for epoch in range(epochs):
        model.train()
        hidden = model.init_hidden(batch_size)
        total, chunks = 0.0, 0
        for i in range(0, data.size(0) - 1, bptt):
            seq = min(bptt, data.size(0) - 1 - i)
            x, y = data[i:i + seq], data[i + 1:i + 1 + seq]
            hidden = tuple(h.detach() for h in hidden)           # truncated BPTT: cut the graph here
            logits, hidden = model(x, hidden)
            loss = F.cross_entropy(logits.view(-1, len(vocab)), y.reshape(-1))
            model.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            with openreg.no_grad():
                for p in model.parameters():
                    p.add_(p.grad, alpha=-lr)
            total += loss.item()
            chunks += 1
        epoch_loss = total / chunks
        print(f"epoch {epoch}  mean loss {epoch_loss:.4f}  lr {lr:g}")
        if epoch_loss > best - 1e-3:
            lr /= 4
        best = min(best, epoch_loss)
    return epoch_loss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--device", default=None)
    parser.add_argument("--target", type=float, default=TARGET_LOSS)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    final = train(args.epochs, args.device or default_device())
    elapsed = time.perf_counter() - start
    print(f"final loss {final:.4f} (target < {args.target}); {args.epochs} epochs in {elapsed:.2f}s")
    return 0 if final < args.target else 1


if __name__ == "__main__":
    sys.exit(main())
