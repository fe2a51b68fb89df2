"""bcast_mpi4py: an mpi4py program that knows nothing of leancast. comm.Bcast of buffers
(bytearray as MPI.BYTE, array('d') as MPI.DOUBLE) and comm.bcast of pickled objects, on
COMM_WORLD from every root and on a split communicator; every value checked."""
import array
import sys

from mpi4py import MPI


def pattern(seed, n):
    return bytes((seed * 31 + i * 7 + (i >> 8) + 1) & 0xFF for i in range(n))


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    failures, made = 0, 0
    for root in range(size):
        for n in (10, 20000, 600000):
            buf = bytearray(pattern(root + n, n)) if rank == root else bytearray(n)
            comm.Bcast([buf, MPI.BYTE], root=root)
            made += 1
            failures += bytes(buf) != pattern(root + n, n)
        doubles = array.array("d", (i * 0.5 + root for i in range(30000)) if rank == root else [0.0] * 30000)
        comm.Bcast([doubles, MPI.DOUBLE], root=root)
        made += 1
        failures += list(doubles) != [i * 0.5 + root for i in range(30000)]
        value = {"root": root, "text": "y" * 50000, "list": list(range(1000))} if rank == root else None
        value = comm.bcast(value, root=root)
        made += 1
        failures += value != {"root": root, "text": "y" * 50000, "list": list(range(1000))}
    half = comm.Split(rank % 2, rank)
    words = half.bcast(["half", rank % 2] if half.Get_rank() == 0 else None, root=0)
    made += 1
    failures += words != ["half", rank % 2]
    half.Free()
    if failures:
        print(f"rank {rank}: FAILED {failures} checks", file=sys.stderr)
    total = comm.allreduce(failures)
    if rank == 0:
        state = "FAILED" if total else "all data correct"
        print(f"bcast_mpi4py: rank 0 made at least {made} broadcasts; {state}", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
