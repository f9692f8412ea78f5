"""The float64 references of the CPU tests (python/tests/): fla's
naive_recurrent_kda per token, and fla's error metric. No imports of kda,
so that a test can import it from wherever it is installed."""
import torch


def recurrence(q, k, v, g, beta, scale, h0):
    """fla's naive_recurrent_kda in float64: per value head, decay the state,
    apply the delta rule, read the output with the updated state."""
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    group = HV // H
    q, k, v, g, beta = (x.double() for x in (q, k, v, g, beta))
    o = torch.zeros(B, T, HV, V, dtype=torch.float64)
    S = torch.zeros(B, HV, K, V, dtype=torch.float64) if h0 is None else h0.double().clone()
    for t in range(T):
        for nu in range(HV):
            h = nu // group
            kt, qt, vt = k[:, t, h], q[:, t, h], v[:, t, nu]
            s = S[:, nu] * torch.exp(g[:, t, nu]).unsqueeze(-1)
            pred = torch.einsum('bkv,bk->bv', s, kt)
            s = s + beta[:, t, nu, None, None] * kt.unsqueeze(-1) * (vt - pred).unsqueeze(1)
            S[:, nu] = s
            o[:, t, nu] = scale * torch.einsum('bkv,bk->bv', s, qt)
    return o, S


def rel_error(x, ref):
    x, ref = x.double(), ref.double()
    return (torch.sqrt(torch.mean((x - ref) ** 2)) /
            torch.sqrt(torch.mean(ref ** 2))).item()
