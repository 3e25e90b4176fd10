/* gpumotionest — checkasm --bench --input: a backend's speed on real
 * frames, read from a raw I420 file (only the luma planes are used). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "me_backend.h"

int
checkasm_bench_file (const char *path, unsigned w, unsigned h,
    const char *backend)
{
  const char *name = backend ? backend : "cpu";
  const size_t luma = (size_t) w * h, frame = luma + 2 * (size_t) ((w + 1) / 2)
      * ((h + 1) / 2);
  static const unsigned cfg[][2] = {
    {16, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {32, GST_MOTION_VECTOR_PARTITIONS_16X16},
    {16, GST_MOTION_VECTOR_PARTITIONS_ALL},
  };
  g_autoptr (GError) error = NULL;
  gchar *data = NULL;
  gsize size = 0;
  MEBackend *s;

  if (!g_file_get_contents (path, &data, &size, &error)) {
    printf ("%s\n", error->message);
    return 1;
  }
  const unsigned n = size / frame;
  if (n < 2) {
    printf ("%s: fewer than two %ux%u I420 frames\n", path, w, h);
    g_free (data);
    return 1;
  }
  s = checkasm_open_backend (name, &error);
  if (!s) {
    printf ("SKIP: %s: %s\n", name, error->message);
    g_free (data);
    return 77;
  }

  const unsigned mb_cols = gst_motion_vector_mb_cols (w);
  const unsigned mb_rows = gst_motion_vector_mb_rows (h);
  GstMotionVectorCell *cells[GST_MOTION_VECTOR_PARTITION_COUNT];
  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    cells[p] = g_new (GstMotionVectorCell, (size_t)
        gst_motion_vector_grid_cols (p, mb_cols)
        * gst_motion_vector_grid_rows (p, mb_rows));

  for (unsigned k = 0; k < G_N_ELEMENTS (cfg); k++) {
    MESearchParams params;
    MEField field = { mb_cols, mb_rows };

    me_search_params_init (&params);
    params.search_range = cfg[k][0];
    params.partitions = cfg[k][1];
    for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
      field.grid[p] = (params.partitions & (1u << p)) ? cells[p] : NULL;

    me_backend_reset (s);
    me_backend_set_in_flight (s, 1);
    double t0 = checkasm_now ();
    for (unsigned i = 0; i < n; i++) {
      MEPlane plane = { (const guint8 *) data + i * frame, w, w, h };
      if (!me_backend_submit (s, &plane, &params, &field, &error)
          || !me_backend_collect (s, &error)) {
        printf ("%s\n", error->message);
        return 1;
      }
    }
    double t = checkasm_now () - t0;
    /* the first frame has no reference: n - 1 searches */
    printf ("%s %ux%u R=%u %s: %u searches in %.3f s: %.2f searches/s\n",
        name, w, h, params.search_range,
        params.partitions == GST_MOTION_VECTOR_PARTITIONS_16X16 ? "16x16"
        : "all-shapes", n - 1, t, (n - 1) / t);
  }

  for (int p = 0; p < GST_MOTION_VECTOR_PARTITION_COUNT; p++)
    g_free (cells[p]);
  me_backend_close (s);
  g_free (data);
  return 0;
}
