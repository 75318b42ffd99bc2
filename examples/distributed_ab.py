"""The layout A/B on every GPU at once: one process per GPU under torch.distributed (NCCL).

    torchrun --nproc-per-node 2 examples/distributed_ab.py [N]     # one rank per GPU
    python examples/distributed_ab.py [N]                          # one process, the current GPU

Each rank takes its own GPU (LOCAL_RANK), runs the transpose in its three layouts and the two GEMMs
on PyTorch tensors of that device, checks them against torch, times them with smemkit.bench (on the
rank's device: smemkit keeps its pools, cuBLAS handles and device facts per device), and rank 0
gathers one table.  NVLink multicast stays off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1):
the shared hosts need it.
"""
import os

os.environ["NCCL_NVLS_ENABLE"] = "0"  # before torch / NCCL read them
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"

import sys  # noqa: E402

import smemkit  # noqa: E402


def check(torch, n):
    """Every op on this rank's device against torch; raises AssertionError on a wrong result."""
    g = torch.Generator(device="cuda").manual_seed(1234)
    x = torch.randn(n, n + 67, device="cuda", generator=g)
    for layout in smemkit.LAYOUTS:
        assert torch.equal(smemkit.transpose(x, layout), x.t().contiguous()), layout  # bit for bit
    k = min(n, 1024)
    a = torch.randn(n, k, device="cuda", generator=g)
    b = torch.randn(k, n, device="cuda", generator=g)
    ref = (a.double() @ b.double())
    for layout in smemkit.LAYOUTS:
        d = smemkit.sgemm(a, b, layout=layout)
        err = float((d.double() - ref).norm() / ref.norm())
        assert err < 4 * k ** 0.5 * 2.0 ** -24, (layout, err)
    a16, b16 = a.half(), b.half()
    ref16 = a16.double() @ b16.double()
    for layout in smemkit.LAYOUTS:
        d = smemkit.gemm(a16, b16, layout=layout)  # float16 result: rounding 2^-11 relative
        err = float((d.double() - ref16).norm() / ref16.norm())
        assert err < 2.0 ** -9, (layout, err)


def rows(rank, n):
    """This rank's timings: (rank, device, op, layout, median ms, rate, unit, fraction of the ceiling)."""
    out = []
    for op, shape in (("transpose", (n, n)), ("sgemm", (n, n, n)), ("gemm", (n, n, n))):
        for r in smemkit.bench(op, shape):
            out.append((rank, r.device, op, r.layout, r.median_ms, r.rate, r.unit, r.ratio))
    return out


def table(all_rows):
    lines = [f"{'rank':>4}  {'device':<26} {'op':<9} {'layout':<8} {'median ms':>9} {'rate':>8} {'unit':<7} "
             f"{'of ceiling':>10}"]
    for rank, dev, op, layout, ms, rate, unit, ratio in sorted(all_rows, key=lambda t: (t[2], t[3], t[0])):
        frac = "n/a" if ratio is None else f"{ratio:.1%}"
        lines.append(f"{rank:>4}  {dev[:26]:<26} {op:<9} {layout:<8} {ms:>9.4f} {rate:>8.0f} {unit:<7} {frac:>10}")
    return "\n".join(lines)


def main(n=2048):
    try:
        import torch
    except ImportError:
        print("distributed_ab: needs PyTorch (pip install torch); nothing to run.")
        return 0
    if not (torch.cuda.is_available() and smemkit.is_available()):
        print("distributed_ab: No GPU here; this example runs one rank per GPU (torchrun --nproc-per-node N).")
        return 0
    import torch.distributed as dist
    launched = "RANK" in os.environ and "WORLD_SIZE" in os.environ  # torchrun sets them
    if launched:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)  # this rank's GPU: bench and the tensors below use it
        dist.init_process_group("nccl")
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1
    if rank == 0:
        gpus = torch.cuda.device_count()
        how = f"{world} rank(s) under torchrun" if launched else \
            "one process (not under torchrun: run `torchrun --nproc-per-node N examples/distributed_ab.py`)"
        print(f"distributed_ab: {how}, {gpus} GPU(s) visible" +
              ("; only one GPU: the table has one rank" if world == 1 else ""))
    try:
        check(torch, n)
        mine = rows(rank, n)
        gathered = [None] * world
        if launched:
            dist.all_gather_object(gathered, mine)
        else:
            gathered = [mine]
        if rank == 0:
            print(f"all ranks agree with torch (transpose bit-exact, GEMMs within their bounds); N = {n}")
            print(table([r for part in gathered for r in part]))
    finally:
        if launched:
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(*map(int, sys.argv[1:2])))
