/* translate/data: the chunk path of datasets (ncztr_chunkio.c), the per-array chunk cache,
 * extent changes and storage size (ncztr_extent.c), variable-length sequences (ncztr_vlen.c). */
#ifndef NCZTR_CHUNKIO_H
#define NCZTR_CHUNKIO_H

#include "ncztr_model.h"

/* Frees a chunk cache and every chunk in it. Dirty chunks are discarded: call
 * ncztr_array_flush first when they must reach the store. NULL is allowed. */
void ncztr_chunkcache_free(ncztr_chunkcache *c);

/* Writes the array's dirty chunks and then empties its cache. For use after chunk objects
 * were deleted or rewritten behind the cache's back (shrinking the extent, moving). */
herr_t ncztr_array_cache_evict(ncztr_obj *o);

/* Takes one chunk (chunk-grid coordinates) out of the array's cache, storing it first when
 * dirty: another process is about to write it (translate/par). */
herr_t ncztr_array_chunk_release(ncztr_obj *o, const uint64_t *coord);

/* Dataset I/O (ncztr_chunkio.c). Spaces are already resolved (no H5S_ALL/BLOCK). */
herr_t ncztr_array_read(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf);
herr_t ncztr_array_write(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, const void *buf);
/* The same, leaving out the chunks (chunk-grid coordinates) for which skip returns true:
 * other processes write them (translate/par). */
typedef bool (*ncztr_chunk_skip_fn)(void *ud, const uint64_t *coord);
herr_t ncztr_array_write_except(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space,
                                const void *buf, ncztr_chunk_skip_fn skip, void *skip_ud);
/* Writes cached dirty chunks. */
herr_t ncztr_array_flush(ncztr_obj *o);

herr_t ncztr_array_set_extent(ncztr_obj *o, const hsize_t *size);
/* Bytes of chunk objects present in the store. */
herr_t ncztr_array_storage_size(ncztr_obj *o, hsize_t *size);

/* The last handle of a dataset closes: its dirty chunks reach the store (as with HDF5's
 * cache), unless the array is deleted, anonymous, unusable or the store read-only. */
herr_t ncztr_array_close_flush(ncztr_obj *o);

/* Arrays of variable-length sequences ("vlen-array" object arrays) have chunks of no fixed
 * size: ncztr_array_read/write hand them to ncztr_vlen_io (ncztr_vlen.c), which stores a
 * write's chunks before it returns. dxpl: a read allocates the sequences it returns with
 * the plist's H5Pset_vlen_mem_manager allocator (H5P_DEFAULT: malloc). */
herr_t ncztr_vlen_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf, bool write,
                     hid_t dxpl);

/* Datasets of old-style object references (ncztr_refdata.c; ncztr_array_is_ref): the
 * application's 8-byte references (mem_type H5T_STD_REF_OBJ, the objects' ids) <-> the
 * paths of their objects the array stores. Spaces are resolved, as for ncztr_array_read. */
herr_t ncztr_refdata_io(ncztr_obj *o, hid_t mem_type, hid_t mem_space, hid_t file_space, void *buf,
                        bool write);
/* The stored paths themselves: n of them, the selection of file_space in order ("" for a
 * null reference); a read's are malloc'ed (ncztr_refdata_free_texts). */
herr_t ncztr_refdata_text_io(ncztr_obj *o, hid_t file_space, size_t n, char **text, bool write);
/* The path a reference to id is stored as: its object's path now (malloc'ed), or an
 * unallocated "" when it names no object; NULL when out of memory. */
char *ncztr_refdata_path(ncztr_file *f, uint64_t id);
/* The id a stored path names now; 0 for "" or a path that names nothing. */
uint64_t ncztr_refdata_id(ncztr_file *f, const char *path);
/* The longest path a dataset of references holds (the |S<n> of NCZarr v2; SIZE_MAX for Zarr
 * v3's variable-length text), and a check that n paths fit it (NCZ_E_NOTREPR naming the
 * dataset and the path otherwise). */
size_t ncztr_refdata_width(const ncztr_obj *o);
herr_t ncztr_refdata_check_width(const ncztr_obj *o, char *const *text, size_t n);
/* Frees n texts of ncztr_refdata_path or a read (leaving the unallocated ""), and text. */
void ncztr_refdata_free_texts(char **text, size_t n);

#endif
