"""The same network in NumPy, in float64: the reference the kernels' forward pass, gradients and
steps are checked against (python/tests/test_cupy_cnn.py)."""

import numpy as np


def _conv(x, w, b):
    n, c, h, wd = x.shape
    k = w.shape[0]
    padded = np.zeros((n, c, h + 2, wd + 2))
    padded[:, :, 1:-1, 1:-1] = x
    y = np.zeros((n, k, h, wd)) + b[None, :, None, None]
    for r in range(3):
        for s in range(3):
            y += np.einsum("nchw,kc->nkhw", padded[:, :, r:r + h, s:s + wd], w[:, :, r, s])
    return y, padded


def _conv_backward(dy, padded, w):
    n, k, h, wd = dy.shape
    dpadded = np.zeros_like(padded)
    dw = np.zeros_like(w)
    for r in range(3):
        for s in range(3):
            dw[:, :, r, s] = np.einsum("nkhw,nchw->kc", dy, padded[:, :, r:r + h, s:s + wd])
            dpadded[:, :, r:r + h, s:s + wd] += np.einsum("nkhw,kc->nchw", dy, w[:, :, r, s])
    return dpadded[:, :, 1:-1, 1:-1], dw, dy.sum(axis=(0, 2, 3))


def _pool(x):
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    which = windows.argmax(axis=-1)  # the first of equal values, as the kernel's strict >
    return windows.max(axis=-1), which


def _pool_backward(dy, which, shape):
    n, c, h, w = shape
    d = np.zeros((n, c, h // 2, w // 2, 4))
    np.put_along_axis(d, which[..., None], dy[..., None], axis=-1)
    return d.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(shape)


def step(p, x, labels):
    """(mean loss, per-parameter gradients, logits) of the network at parameters p, in float64."""
    p = {k: v.astype(np.float64) for k, v in p.items()}
    x = x.astype(np.float64)
    n = x.shape[0]
    a1, pad1 = _conv(x, p["conv1_w"], p["conv1_b"])
    r1 = np.maximum(a1, 0)
    p1, w1 = _pool(r1)
    a2, pad2 = _conv(p1, p["conv2_w"], p["conv2_b"])
    r2 = np.maximum(a2, 0)
    p2, w2 = _pool(r2)
    f = p2.reshape(n, -1)
    z1 = f @ p["fc1_w"].T + p["fc1_b"]
    r3 = np.maximum(z1, 0)
    logits = r3 @ p["fc2_w"].T + p["fc2_b"]
    z = logits - logits.max(axis=1, keepdims=True)
    prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(n), labels]))
    d = prob.copy()
    d[np.arange(n), labels] -= 1
    d /= n
    g = {"fc2_w": d.T @ r3, "fc2_b": d.sum(axis=0)}
    dz1 = (d @ p["fc2_w"]) * (z1 > 0)
    g["fc1_w"], g["fc1_b"] = dz1.T @ f, dz1.sum(axis=0)
    dp2 = (dz1 @ p["fc1_w"]).reshape(p2.shape)
    da2 = _pool_backward(dp2, w2, r2.shape) * (a2 > 0)
    dp1, g["conv2_w"], g["conv2_b"] = _conv_backward(da2, pad2, p["conv2_w"])
    da1 = _pool_backward(dp1, w1, r1.shape) * (a1 > 0)
    _, g["conv1_w"], g["conv1_b"] = _conv_backward(da1, pad1, p["conv1_w"])
    return loss, g, logits
