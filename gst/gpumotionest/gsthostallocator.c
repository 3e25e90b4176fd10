/* gpumotionest — GstAllocator over a backend's host memory. */
#include <string.h>

#include "gsthostallocator.h"

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* from host_alloc, mem.align applied */
  gpointer block;               /* what host_free takes */
} GstHostMemory;

struct _GstHostAllocator
{
  GstAllocator parent;
  void *(*host_alloc) (size_t size);
  void (*host_free) (void *ptr);
};

G_DEFINE_TYPE (GstHostAllocator, gst_host_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
host_mem_new (GstHostAllocator * self, GstMemoryFlags flags, GstMemory * parent,
    gpointer block, guint8 * data, gsize maxsize, gsize align, gsize offset,
    gsize size)
{
  GstHostMemory *mem = g_new0 (GstHostMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (mem), flags, GST_ALLOCATOR_CAST (self),
      parent, maxsize, align, offset, size);
  mem->block = block;
  mem->data = data;
  return GST_MEMORY_CAST (mem);
}

static GstMemory *
gst_host_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstHostAllocator *self = GST_HOST_ALLOCATOR (allocator);
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  gpointer block = self->host_alloc (maxsize + align);
  guint8 *data;

  if (!block)
    return NULL;
  data = (guint8 *) (((guintptr) block + align) & ~(guintptr) align);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (data + params->prefix + size, 0, params->padding);
  return host_mem_new (self, params->flags, NULL, block, data, maxsize, align,
      params->prefix, size);
}

static void
gst_host_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  GstHostAllocator *self = GST_HOST_ALLOCATOR (allocator);
  GstHostMemory *mem = (GstHostMemory *) memory;

  /* Shared sub-memories point into their parent's block. */
  if (!memory->parent)
    self->host_free (mem->block);
  g_free (mem);
}

static gpointer
host_mem_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstHostMemory *) memory)->data;
}

static void
host_mem_unmap (GstMemory * memory)
{
}

static GstMemory *
host_mem_share (GstMemory * memory, gssize offset, gssize size)
{
  GstHostMemory *mem = (GstHostMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;
  return host_mem_new (GST_HOST_ALLOCATOR (memory->allocator),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      parent, mem->block, mem->data, memory->maxsize, memory->align,
      memory->offset + offset, size);
}

static void
gst_host_allocator_class_init (GstHostAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = gst_host_allocator_alloc;
  allocator_class->free = gst_host_allocator_free;
}

static void
gst_host_allocator_init (GstHostAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = "MEHostMemory";
  alloc->mem_map = host_mem_map;
  alloc->mem_unmap = host_mem_unmap;
  alloc->mem_share = host_mem_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_host_allocator_new (const MEBackendOps * ops)
{
  GstHostAllocator *self;

  if (!ops->host_alloc || !ops->host_free)
    return NULL;
  self = g_object_new (GST_TYPE_HOST_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->host_alloc = ops->host_alloc;
  self->host_free = ops->host_free;
  return GST_ALLOCATOR_CAST (self);
}
