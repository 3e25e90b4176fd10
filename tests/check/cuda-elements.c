/* gpumotionest — what the tests of frames in CUDA memory share
 * (cuda-elements.h). */
#include <string.h>

#include "cuda-elements.h"

#define CUDA_CONTEXT_TYPE "gst.cuda.context"

gboolean
cuda_elements_usable (const gchar * element)
{
  GstElement *e = gst_element_factory_make ("cudaupload", NULL);
  GstElement *p;
  GstPadTemplate *t;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  g_autofree gchar *caps = NULL;
  gboolean ok;

  if (!e)
    return FALSE;
  gst_object_unref (e);
  e = gst_element_factory_make (element, NULL);
  if (!e)
    return FALSE;
  t = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (e), "sink");
  caps = gst_caps_to_string (GST_PAD_TEMPLATE_CAPS (t));
  gst_object_unref (e);
  if (!strstr (caps, "memory:CUDAMemory"))
    return FALSE;
  p = gst_parse_launch ("videotestsrc num-buffers=2 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! fakesink", &err);
  if (!p) {
    g_clear_error (&err);
    return FALSE;
  }
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return ok;
}

GObject *
cuda_elements_pad_context (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstQuery *q = gst_query_new_context (CUDA_CONTEXT_TYPE);
  GObject *obj = NULL;

  if (pad && gst_pad_query (pad, q)) {
    GstContext *ctx = NULL;
    gst_query_parse_context (q, &ctx);
    if (ctx) {
      /* the library names the field after the context type */
      const GValue *v = gst_structure_get_value (gst_context_get_structure
          (ctx), CUDA_CONTEXT_TYPE);
      if (v && G_VALUE_HOLDS_OBJECT (v))
        obj = g_value_dup_object (v);
    }
  }
  gst_query_unref (q);
  if (pad)
    gst_object_unref (pad);
  return obj;
}

gboolean
cuda_upload_takes (const gchar * format)
{
  GstElement *e = gst_element_factory_make ("cudaupload", NULL);
  if (!e)
    return FALSE;
  GstPadTemplate *t = gst_element_class_get_pad_template
      (GST_ELEMENT_GET_CLASS (e), "sink");
  GstCaps *want = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, format, NULL);
  const gboolean ok = t && gst_caps_can_intersect (want,
      GST_PAD_TEMPLATE_CAPS (t));
  gst_caps_unref (want);
  gst_object_unref (e);
  return ok;
}
