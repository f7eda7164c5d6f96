"""``torch.stft`` and ``torch.istft`` (and their Tensor methods), written with openreg's operators: padding, the
frames as a strided view (``unfold``), the window product and the FFTs, so gradients and both devices come with
them. Parameters, defaults, shapes, warnings and errors are PyTorch's.

>>> import openreg
>>> x = openreg.sin(openreg.arange(64.0) * 0.5)
>>> spec = openreg.stft(x, 16, window=openreg.hann_window(16), return_complex=True)
>>> spec.shape, spec.dtype
(openreg.Size([9, 17]), openreg.complex64)
>>> y = openreg.istft(spec, 16, window=openreg.hann_window(16), length=64)
>>> bool((y - x).abs().max() < 1e-5)
True
"""
from __future__ import annotations

import warnings

from .amp.composite import autocast_composite

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
              "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
              "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")


def _o():
    import openreg
    return openreg


def _window(window, win_length: int, n_fft: int, like, center_it: bool = True):
    """The window as n_fft values: ``window`` (or ones) of ``win_length`` zero-padded on both sides (as it is
    when ``center_it`` is False: None for no window)."""
    o = _o()
    if window is None:
        if win_length == n_fft or not center_it:
            return None
        window = o.ones(win_length, dtype=like.dtype if not like.is_complex() else o.float32, device=like.device)
    if win_length < n_fft and center_it:
        left = (n_fft - win_length) // 2
        window = o.nn.functional.pad(window, [left, n_fft - win_length - left])
    return window


@autocast_composite("stft")
def stft(input, n_fft: int, hop_length: int | None = None, win_length: int | None = None, window=None,
         center: bool = True, pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None):
    """Short-time Fourier transform: ``(n_fft // 2 + 1, n_frames)`` (onesided) per signal of a 1-d ``(L,)`` or
    2-d ``(B, L)`` input; ``return_complex=False`` (deprecated in PyTorch) gives ``view_as_real`` of it."""
    o = _o()
    if window is None:
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.",
                      UserWarning, stacklevel=2)
    if align_to_window is not None and center:
        raise RuntimeError("stft: align_to_window should only be set when center = false")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got a {input.dim()}D tensor")
    x = input
    if center:
        pad = n_fft // 2
        shape = list(x.shape)
        x = o.nn.functional.pad(x.reshape([1] * (3 - x.dim()) + shape), [pad, pad], mode=pad_mode)
        x = x.reshape(shape[:-1] + [x.shape[-1]])
    length = x.shape[-1]
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win}, but got window "
                           f"with size {list(window.shape)}")
    aligned = bool(align_to_window) and win < n_fft
    w = _window(window, win, n_fft, x, center_it=not aligned)
    frames = x.unfold(-1, win if aligned else n_fft, hop)          # (..., n_frames, frame)
    if w is not None:
        frames = frames * w
    if aligned:     # frames of win_length where the window is, zero-padded on both sides to n_fft
        left = (n_fft - win) // 2
        frames = o.nn.functional.pad(frames, [left, n_fft - win - left])
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    if frames.is_complex() or not onesided:
        spec = o.fft.fft(frames, n=n_fft, dim=-1, norm=norm)
    else:
        spec = o.fft.rfft(frames, n=n_fft, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    return spec if return_complex else o.view_as_real(spec)


def istft(input, n_fft: int, hop_length: int | None = None, win_length: int | None = None, window=None,
          center: bool = True, normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False):
    """Inverse of ``stft``: overlap-add of the inverse FFTs of the frames, divided by the summed squared window
    (which must not vanish: the NOLA condition); ``input`` is ``(freq, n_frames)`` or ``(B, freq, n_frames)``."""
    o = _o()
    if window is None:
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but got {input.dim()}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not 0 < win <= n_fft:
        raise RuntimeError(f"istft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if not 0 < hop <= win:
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(f"istft: expected a 1D window tensor of size equal to win_length={win}, but got window "
                           f"with size {list(window.shape)}")
    batched = input.dim() == 3
    spec = input if batched else input.unsqueeze(0)
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided:
        if n_fft // 2 + 1 != n_freq:
            raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to "
                               f"match n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    elif n_fft != n_freq:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {n_freq}")
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(-1, -2)                             # (B, n_frames, freq)
    if return_complex:
        frames = o.fft.ifft(frames, n=n_fft, dim=-1, norm=norm)
    else:
        if not onesided:
            frames = frames[..., :n_fft // 2 + 1]
        frames = o.fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    w = _window(window, win, n_fft, frames.real if frames.is_complex() else frames)
    if w is None:
        w = o.ones(n_fft, dtype=frames.real.dtype if frames.is_complex() else frames.dtype, device=frames.device)
    frames = frames * w
    expected = n_fft + hop * (n_frames - 1)
    fold = o.nn.functional.fold

    def overlap_add(t):                                         # (B, n_frames, n_fft) -> (B, expected)
        return fold(t.transpose(1, 2), output_size=(1, expected), kernel_size=(1, n_fft),
                    stride=(1, hop)).reshape(t.shape[0], expected)
    if frames.is_complex():
        y = o.complex(overlap_add(frames.real), overlap_add(frames.imag))
    else:
        y = overlap_add(frames)
    env = overlap_add((w.abs() ** 2).reshape(1, 1, n_fft).expand(1, n_frames, n_fft)).reshape(expected)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    end = min(end, expected)
    y = y[:, start:end]
    env = env[start:end]
    if env.numel() and env.abs().min().item() < 1e-11:
        raise RuntimeError(f"istft: window overlap add min: {env.abs().min().item()}")
    y = y / env
    if length is not None and y.shape[-1] < length:
        y = o.nn.functional.pad(y, [0, length - y.shape[-1]])
    return y if batched else y.squeeze(0)


def publish(namespace) -> None:
    """``openreg.stft``/``istft`` (the Tensor methods are deferred entries of ``_tensor_methods``)."""
    for fn in (stft, istft):
        if not hasattr(namespace, fn.__name__):
            setattr(namespace, fn.__name__, fn)
