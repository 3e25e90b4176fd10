/* gpumotionest — symbol export for libgstmotionvectors. */
#ifndef GST_MOTION_VECTORS_PRELUDE_H
#define GST_MOTION_VECTORS_PRELUDE_H

#include <gst/gst.h>

#ifdef BUILDING_GST_MOTION_VECTORS
#define GST_MOTION_VECTORS_API GST_API_EXPORT
#else
#define GST_MOTION_VECTORS_API GST_API_IMPORT
#endif

#endif
