"""GPU Lab's own image classes, in NumPy: ten classes of shapes (disc, square, triangle, plus, ring,
horizontal stripes, vertical stripes, diagonal, checkers, cross) at random places, sizes, turns and
colours, with noise, each image normalised. The same drawing as kernels/cnn/cnn_data.cpp (the
capstone's training set): every draw a pure function of (seed, image, k) through SplitMix64, so the
same seed gives the same images there and here."""

import numpy as np

NAMES = ("disc", "square", "triangle", "plus", "ring", "horizontal stripes", "vertical stripes", "diagonal",
         "checkers", "cross")
_M = (1 << 64) - 1


def _mix64(x):
    """SplitMix64's finaliser on uint64 arrays (kernels/base/mix.hpp)."""
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(_M)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _draw(seed, i, k):
    """Uniform in [0, 1): draw k of image i (k may be an array)."""
    with np.errstate(over="ignore"):
        bits = _mix64(_mix64(_mix64(np.uint64(seed)) + np.uint64(i)) + np.asarray(k, dtype=np.uint64))
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _inside(shape, u, v):
    r = np.sqrt(u * u + v * v)
    a, b = np.abs(u), np.abs(v)
    box = (a <= 1) & (b <= 1)
    return [
        r <= 1,
        (a <= 0.85) & (b <= 0.85),
        (v <= 0.9) & (v >= -0.9) & (a <= (v + 0.9) / 1.8),
        ((a <= 0.3) & (b <= 1)) | ((b <= 0.3) & (a <= 1)),
        (r <= 1) & (r >= 0.55),
        box & (np.floor((v + 1) * 2.5).astype(int) % 2 == 0),
        box & (np.floor((u + 1) * 2.5).astype(int) % 2 == 0),
        (np.abs(u - v) <= 0.35) & box,
        box & ((np.floor((u + 1) * 2).astype(int) + np.floor((v + 1) * 2).astype(int)) % 2 == 0),
        ((np.abs(u - v) <= 0.3) | (np.abs(u + v) <= 0.3)) & box,
    ][shape]


def make_shapes(count, side=32, seed=1):
    """(images float32 [count, 3, side, side], labels int32 [count]); image i is of class i % 10."""
    x = np.empty((count, 3, side, side), np.float32)
    labels = (np.arange(count) % 10).astype(np.int32)
    ys, xs = np.mgrid[0:side, 0:side].astype(np.float64)
    for i in range(count):
        shape = i % 10
        half = side * (0.2 + 0.2 * _draw(seed, i, 0))
        cx = half + (side - 2 * half) * _draw(seed, i, 1)
        cy = half + (side - 2 * half) * _draw(seed, i, 2)
        turn = (_draw(seed, i, 3) - 0.5) * 0.87
        cs, sn = np.cos(turn), np.sin(turn)
        fg = [_draw(seed, i, 4 + c) for c in range(3)]
        bg = [_draw(seed, i, 7 + c) for c in range(3)]
        strong = int(_draw(seed, i, 10) * 3) % 3
        if abs(fg[strong] - bg[strong]) < 0.5:
            fg[strong] = bg[strong] + 0.5 if bg[strong] < 0.5 else bg[strong] - 0.5
        dx, dy = (xs + 0.5 - cx) / half, (ys + 0.5 - cy) / half
        on = _inside(shape, cs * dx + sn * dy, -sn * dx + cs * dy)
        k = 11 + (ys.astype(np.int64) * side + xs.astype(np.int64)) * 3
        for c in range(3):
            noise = 0.15 * (_draw(seed, i, k + c) - 0.5)
            x[i, c] = np.where(on, fg[c], bg[c]) + noise
    flat = x.reshape(count, -1).astype(np.float64)
    mean = flat.mean(axis=1, keepdims=True)
    deviation = np.maximum(np.sqrt(((flat - mean) ** 2).mean(axis=1, keepdims=True)), 1e-3)
    return ((flat - mean) / deviation).astype(np.float32).reshape(x.shape), labels
