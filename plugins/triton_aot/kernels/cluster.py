"""The thread-block cluster barrier, for kernels whose programs share one output across
a cluster (softmax_cluster). The hardware schedules a cluster's
programs together, so the barrier never waits on a program that has not started."""
import triton
import triton.language as tl

# Every thread of the cluster arrives (its earlier stores released) and waits (later
# loads acquire). $0 = $1 carries a dependency for the loads that must follow it.
_CLUSTER_SYNC = tl.constexpr("barrier.cluster.arrive.release; barrier.cluster.wait.acquire; mov.b32 $0, $1;")


@triton.jit
def cluster_sync(token):
    """Returns token once every program of the cluster has arrived; use the result in
    the addresses of the loads that read the peers' stores."""
    return tl.inline_asm_elementwise(_CLUSTER_SYNC, "=r,r", [token], dtype=tl.int32, is_pure=False, pack=1)
