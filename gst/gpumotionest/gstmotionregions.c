/* gpumotionest — moving macroblocks joined into at most N rectangles
 * (docs/encoder-hints.md, "Regions").
 *
 * 1. Components: moving macroblocks that touch, sides or corners
 *    (8-connectivity), are one component.  Union-find whose root is always
 *    the component's first macroblock in raster order, so the labels do
 *    not depend on the order of the joins.  A field with more than
 *    MAX_COMPONENTS components (noise) is labelled on a coarser grid, each
 *    cell the OR of 2x2 cells of the finer one, until it has at most that
 *    many: nearby specks join, and the merging below stays cheap.
 * 2. Boxes: each component's bounding box of its own moving macroblocks.
 * 3. Merging: while there are more than N boxes, or two boxes overlap, the
 *    pair whose union box adds the least area (union minus both, in
 *    macroblocks; negative when they overlap) becomes its union box; among
 *    equal pairs the first in (i, j) order of the boxes, which are in the
 *    order of their components' first macroblocks.  Overlaps are merged
 *    even under N because an encoder adds the delta QP of every region that
 *    covers a macroblock.
 * 4. Output: in raster order of their top-left corners, in pixels. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "gstmotionregions.h"

/* Above this many components the field is labelled on a coarser grid.
 * The merging costs the cube of the components: at 256, 240 specks of a
 * 1080p mask took 10 ms a frame to merge into one region; at 64 the worst
 * mask tried takes 0.3 ms (docs/encoder-hints.md). */
#define MAX_COMPONENTS 64
#define MB_SIZE 16

/* A bounding box in macroblocks, corners inclusive. */
typedef struct {
  guint x0, y0, x1, y1;
  guint moving;
  guint64 speed_sum;
} Box;

static guint
root_of (guint * parent, guint i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* The smaller index stays the root: the component's first cell. */
static void
join (guint * parent, guint a, guint b)
{
  a = root_of (parent, a);
  b = root_of (parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

/* Labels the 8-connected components of a cols x rows mask; returns how
 * many there are.  Each cell's root is then root_of (parent, cell). */
static guint
label (const guint8 * mask, guint cols, guint rows, guint * parent)
{
  guint n = 0;

  for (guint y = 0; y < rows; y++) {
    for (guint x = 0; x < cols; x++) {
      const guint i = y * cols + x;

      parent[i] = i;
      if (!mask[i])
        continue;
      /* the neighbours already visited: left, and the three above */
      if (x > 0 && mask[i - 1])
        join (parent, i, i - 1);
      if (y > 0) {
        if (x > 0 && mask[i - cols - 1])
          join (parent, i, i - cols - 1);
        if (mask[i - cols])
          join (parent, i, i - cols);
        if (x + 1 < cols && mask[i - cols + 1])
          join (parent, i, i - cols + 1);
      }
    }
  }
  for (guint i = 0; i < cols * rows; i++)
    if (mask[i] && root_of (parent, i) == i)
      n++;
  return n;
}

static guint64
box_area (const Box * b)
{
  return (guint64) (b->x1 - b->x0 + 1) * (b->y1 - b->y0 + 1);
}

static Box
box_union (const Box * a, const Box * b)
{
  Box u;

  u.x0 = MIN (a->x0, b->x0);
  u.y0 = MIN (a->y0, b->y0);
  u.x1 = MAX (a->x1, b->x1);
  u.y1 = MAX (a->y1, b->y1);
  u.moving = a->moving + b->moving;
  u.speed_sum = a->speed_sum + b->speed_sum;
  return u;
}

static gboolean
box_overlap (const Box * a, const Box * b)
{
  return a->x0 <= b->x1 && b->x0 <= a->x1 && a->y0 <= b->y1
      && b->y0 <= a->y1;
}

/* Step 3: merges until at most max boxes remain and none overlap; returns
 * how many remain. */
static guint
merge_boxes (Box * boxes, guint n, guint max)
{
  while (n > 1) {
    const gboolean too_many = n > max;
    gint64 best = G_MAXINT64;
    guint bi = 0, bj = 0;

    for (guint i = 0; i < n; i++) {
      for (guint j = i + 1; j < n; j++) {
        Box u;
        gint64 growth;

        if (!too_many && !box_overlap (&boxes[i], &boxes[j]))
          continue;
        u = box_union (&boxes[i], &boxes[j]);
        growth = (gint64) box_area (&u) - (gint64) box_area (&boxes[i])
            - (gint64) box_area (&boxes[j]);
        if (growth < best) {
          best = growth;
          bi = i;
          bj = j;
        }
      }
    }
    if (best == G_MAXINT64)
      break;
    boxes[bi] = box_union (&boxes[bi], &boxes[bj]);
    for (guint k = bj; k + 1 < n; k++)
      boxes[k] = boxes[k + 1];
    n--;
  }
  return n;
}

/* Boxes that do not overlap have distinct top-left corners. */
static int
box_raster_order (const void *a, const void *b)
{
  const Box *p = a, *q = b;

  if (p->y0 != q->y0)
    return p->y0 < q->y0 ? -1 : 1;
  if (p->x0 != q->x0)
    return p->x0 < q->x0 ? -1 : 1;
  return 0;
}

/* Writes at most max_regions rectangles to regions and returns how many.
 * mask: one byte per macroblock, row-major, non-zero where it moves;
 * speed (may be NULL): each macroblock's speed in quarter pixels per
 * frame, summed into the rectangles; width x height: the frame in pixels,
 * which the rectangles are clipped to. */
guint
gst_motion_regions_find (const guint8 * mask, const guint32 * speed,
    guint mb_cols, guint mb_rows, guint width, guint height,
    guint max_regions, GstMotionRegion * regions)
{
  const guint n_mbs = mb_cols * mb_rows;
  guint8 *coarse;
  guint *parent, *ids;
  guint cols = mb_cols, rows = mb_rows, scale = 1, n;
  Box *boxes;

  if (!max_regions || !n_mbs)
    return 0;
  max_regions = MIN (max_regions, GST_MOTION_REGIONS_MAX);

  parent = g_new (guint, n_mbs);
  coarse = g_malloc (n_mbs);
  memcpy (coarse, mask, n_mbs);
  /* Step 1, coarser each time until few enough (one cell: one at most). */
  while ((n = label (coarse, cols, rows, parent)) > MAX_COMPONENTS) {
    scale *= 2;
    cols = (mb_cols + scale - 1) / scale;
    rows = (mb_rows + scale - 1) / scale;
    memset (coarse, 0, (gsize) cols * rows);
    for (guint y = 0; y < mb_rows; y++)
      for (guint x = 0; x < mb_cols; x++)
        coarse[(y / scale) * cols + x / scale] |= mask[y * mb_cols + x] != 0;
  }
  if (n == 0) {
    g_free (coarse);
    g_free (parent);
    return 0;
  }

  /* Components numbered in raster order of their first cell. */
  ids = g_new (guint, (gsize) cols * rows);
  boxes = g_new0 (Box, n);
  n = 0;
  for (guint i = 0; i < cols * rows; i++)
    if (coarse[i] && root_of (parent, i) == i)
      ids[i] = n++;

  /* Step 2, over the macroblocks themselves. */
  for (guint i = 0; i < n; i++) {
    boxes[i].x0 = boxes[i].y0 = G_MAXUINT;
  }
  for (guint y = 0; y < mb_rows; y++) {
    for (guint x = 0; x < mb_cols; x++) {
      Box *b;

      if (!mask[y * mb_cols + x])
        continue;
      b = &boxes[ids[root_of (parent, (y / scale) * cols + x / scale)]];
      b->x0 = MIN (b->x0, x);
      b->y0 = MIN (b->y0, y);
      b->x1 = MAX (b->x1, x);
      b->y1 = MAX (b->y1, y);
      b->moving++;
      if (speed)
        b->speed_sum += speed[y * mb_cols + x];
    }
  }

  n = merge_boxes (boxes, n, max_regions);
  qsort (boxes, n, sizeof (Box), box_raster_order);

  for (guint i = 0; i < n; i++) {
    GstMotionRegion *r = &regions[i];

    r->x = boxes[i].x0 * MB_SIZE;
    r->y = boxes[i].y0 * MB_SIZE;
    r->w = MIN ((boxes[i].x1 + 1) * MB_SIZE, width) - r->x;
    r->h = MIN ((boxes[i].y1 + 1) * MB_SIZE, height) - r->y;
    r->moving = boxes[i].moving;
    r->blocks = (guint) box_area (&boxes[i]);
    r->speed_sum = boxes[i].speed_sum;
  }
  g_free (boxes);
  g_free (ids);
  g_free (coarse);
  g_free (parent);
  return n;
}
