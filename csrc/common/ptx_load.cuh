/* PTX wrappers for global loads with cache hints and for programmatic dependent launch (sm_90),
 * shared by the SGEMM kernels (csrc/sgemm/).  The tensor-core GEMM's cp.async / ldmatrix / mma are in
 * ptx_mma.cuh. */
#ifndef SMK_COMMON_PTX_LOAD_CUH
#define SMK_COMMON_PTX_LOAD_CUH

namespace smk {

/* One read-only global load.  STREAM: ld.global.nc.L1::no_allocate, for an operand that is read once
 * (the skinny kernels' streamed A or B): its lines are not written into L1's data banks, which shared
 * memory shares, so the fills no longer collide with the kernel's conflict-free STS.  The tile kernel's
 * loads stay cached in L1 (ld.global.nc): streamed, they lost where blocks on one SM reuse each
 * other's lines.  Measurements: docs/SGEMM_NOTES.md, "Streamed loads and the dependent launch". */
template <bool STREAM>
__device__ __forceinline__ float ldg1(const float *p)
{
    if (!STREAM) return __ldg(p);
    float v;
    asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* One read-only 16-byte global load (p 16-byte aligned).  Not streamed, it asks L2 for 128 bytes on a
 * miss (ld.global.nc.L2::128B): a k-tile of the SGEMM tile kernel reads each row of A in 32-byte
 * pieces (BK = 8 floats), so where A streams from DRAM the next three k-tiles' pieces arrive with the
 * first (256-byte fetches lost elsewhere).  Measurements: docs/RESULTS.md, "SGEMM: straddling float4s
 * read whole, the L2 prefetch hint".  STREAM: as ldg1. */
template <bool STREAM>
__device__ __forceinline__ float4 ldg4(const float4 *p)
{
    float4 v;
    if (!STREAM) {
        asm("ld.global.nc.L2::128B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
}

/* Programmatic dependent launch (sm_90): a dependent kernel launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization may start while this grid's last blocks run; it
 * waits in griddepcontrol.wait until the grid it depends on has finished and its writes are visible.
 * A kernel allows that as it starts (launch_dependents: once every block of the grid has started or
 * finished, the dependent's blocks may be scheduled).  No-ops where nothing depends on the grid, and
 * below sm_90 (where the launcher does not ask for the attribute). */
__device__ __forceinline__ void pdl_allow_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_wait_prerequisites()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

} /* namespace smk */

#endif
