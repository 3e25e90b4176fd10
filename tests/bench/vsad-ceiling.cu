/* gpumotionest — the packed-SAD ceiling of a device (see vsad-ceiling.h). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "me_backend.h"
#include "cuda/me_cuda_vsad.cuh"  /* the instruction the kernels use */
#include "vsad-ceiling.h"

#define CEIL_THREADS 256
#define CEIL_CHAINS 8
#define CEIL_UNROLL 16

/* CEIL_CHAINS independent accumulator chains per thread, operands from
 * memory so nothing folds; each loop trip issues CEIL_UNROLL x CEIL_CHAINS
 * SADs against two instructions of loop control. */
__global__ void
__launch_bounds__ (CEIL_THREADS)
    vsad_ceiling_kernel (const uint32_t *in, uint32_t *out, int trips)
{
  const unsigned t = blockIdx.x * CEIL_THREADS + threadIdx.x;
  uint32_t a[CEIL_CHAINS], b[CEIL_CHAINS], acc[CEIL_CHAINS];
#pragma unroll
  for (int k = 0; k < CEIL_CHAINS; k++) {
    a[k] = in[(t + k) & 1023];
    b[k] = in[(t * 7 + k) & 1023];
    acc[k] = 0;
  }
  for (int n = 0; n < trips; n++) {
#pragma unroll
    for (int u = 0; u < CEIL_UNROLL; u++)
#pragma unroll
      for (int k = 0; k < CEIL_CHAINS; k++)
        acc[k] = me_vsad4 (a[k], b[k], acc[k]);
  }
  uint32_t sum = 0;
#pragma unroll
  for (int k = 0; k < CEIL_CHAINS; k++)
    sum += acc[k];
  out[t] = sum;
}

static gboolean
ck (cudaError_t e, const char *what, GError **error)
{
  if (e == cudaSuccess)
    return TRUE;
  cudaGetLastError ();
  g_set_error (error, ME_BACKEND_ERROR, ME_BACKEND_ERROR_DEVICE,
      "CUDA: %s failed: %s (%s)", what, cudaGetErrorName (e),
      cudaGetErrorString (e));
  return FALSE;
}

gboolean
me_cuda_vsad_ceiling (int device, double *ops_per_second, GError **error)
{
  cudaDeviceProp prop;
  uint32_t *in = NULL, *out = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  gboolean ok = FALSE;
  float best_ms = 0;

  if (!ck (cudaSetDevice (device < 0 ? 0 : device), "cudaSetDevice", error) ||
      !ck (cudaGetDeviceProperties (&prop, device < 0 ? 0 : device),
          "cudaGetDeviceProperties", error))
    return FALSE;
  const unsigned blocks = prop.multiProcessorCount * 8;
  const int trips = 4096;
  uint32_t host[1024];
  for (int i = 0; i < 1024; i++)
    host[i] = (uint32_t)i * 2654435761u;

  if (!ck (cudaMalloc (&in, sizeof (host)), "cudaMalloc", error) ||
      !ck (cudaMalloc (&out, (size_t)blocks * CEIL_THREADS * 4), "cudaMalloc",
          error) ||
      !ck (cudaMemcpy (in, host, sizeof (host), cudaMemcpyHostToDevice),
          "cudaMemcpy", error) ||
      !ck (cudaEventCreate (&e0), "cudaEventCreate", error) ||
      !ck (cudaEventCreate (&e1), "cudaEventCreate", error))
    goto done;

  /* one warm-up, then the best of five */
  for (int rep = 0; rep < 6; rep++) {
    float ms;
    cudaEventRecord (e0, 0);
    vsad_ceiling_kernel<<<blocks, CEIL_THREADS>>> (in, out, trips);
    cudaEventRecord (e1, 0);
    if (!ck (cudaGetLastError (), "ceiling kernel", error) ||
        !ck (cudaEventSynchronize (e1), "ceiling kernel", error) ||
        !ck (cudaEventElapsedTime (&ms, e0, e1), "cudaEventElapsedTime", error))
      goto done;
    if (rep > 0 && (best_ms == 0 || ms < best_ms))
      best_ms = ms;
  }
  *ops_per_second = (double)blocks * CEIL_THREADS * trips * CEIL_UNROLL *
                    CEIL_CHAINS / (best_ms * 1e-3);
  ok = TRUE;

done:
  cudaFree (in);
  cudaFree (out);
  if (e0)
    cudaEventDestroy (e0);
  if (e1)
    cudaEventDestroy (e1);
  return ok;
}
