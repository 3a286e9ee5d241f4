/* Every HDF5 call, macro or default whose name, signature or value differs between HDF5 1.14
 * and 2.x, in one place, so that a port to a new HDF5 is this file. Every layer that uses
 * HDF5 (translate/, vol_connector/, the tests) includes it; translate/base is the lowest
 * translate folder, and everything that links it sees its include directory. The helpers
 * the connector alone needs keep the H5VL_nczarr_compat_ prefix, the others are
 * ncztr_h5compat_.
 *
 * 1.14 symbols that libhdf5 2.x no longer exports, and what a 2.x build imports instead (one
 * "old -> new" a line; test/install/hdf5_2x_build.sh reads this list to judge what a
 * 1.14-built plugin imports):
 *   H5Tdecode -> H5Tdecode2
 *   H5Dread_chunk -> H5Dread_chunk2
 *   H5VL_native_register -> H5VL_NATIVE_g
 *
 * What needs no code here: HDF5 2.0 renamed H5VLstart_lib_state/H5VLfinish_lib_state to
 * H5VLopen_lib_context/H5VLclose_lib_context (the connector calls neither: it never
 * re-enters HDF5 from another thread); removed H5VLpeek_connector_id_by_name/_by_value (see
 * H5VL_nczarr_compat_connector_id); made H5Pset* fail on the default property lists (the
 * connector only sets properties on lists it created or copied); added the datatype class
 * H5T_COMPLEX (the type switches refuse a class they do not know, so a complex type is an
 * "unsupported type" error like any other); changed H5Iregister_type's signature (now
 * H5Iregister_type2; the connector registers no id type); hbool_t became bool (the same
 * type in C11). H5VL_VERSION (3) and H5VL_class_t are the same in both. */
#ifndef NCZTR_H5COMPAT_H
#define NCZTR_H5COMPAT_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- datatypes ---- */

/* Extra zero bytes a caller puts after an encoded type it decodes: 1.14's H5Tdecode takes no
 * length and reads as far as the encoding says, so a corrupt encoding must find zeros, not
 * the heap, past its end. 2.x's H5Tdecode2 stops at the length it is given. */
#if H5_VERSION_GE(2, 0, 0)
#define NCZTR_H5COMPAT_DECODE_SLACK 0
#else
#define NCZTR_H5COMPAT_DECODE_SLACK 4096
#endif

/* A datatype from its H5Tencode bytes (buf holds size of them, then
 * NCZTR_H5COMPAT_DECODE_SLACK zero bytes), or H5I_INVALID_HID. */
static inline hid_t ncztr_h5compat_type_decode(const void *buf, size_t size)
{
#if H5_VERSION_GE(2, 0, 0)
    return H5Tdecode2(buf, size);
#else
    (void)size;
    return H5Tdecode(buf);
#endif
}

/* ---- datasets ---- */

/* The chunk cache size (rdcc_nbytes) that a dataset access plist without a cache of its own
 * reports (H5Pget_chunk_cache falls back to the default file access list): 1 MiB in 1.14
 * (521 slots), 8 MiB in 2.x (8191 slots). Only another size is an application's choice. */
#if H5_VERSION_GE(2, 0, 0)
#define NCZTR_H5COMPAT_DEFAULT_CACHE_BYTES ((size_t)8 << 20)
#else
#define NCZTR_H5COMPAT_DEFAULT_CACHE_BYTES ((size_t)1 << 20)
#endif

/* A raw chunk of a native dataset into buf (buf_size bytes, at least the chunk's storage
 * size): 2.x's default H5Dread_chunk (H5Dread_chunk2) takes the buffer's size and refuses a
 * buffer too small; 1.14's trusts the caller. The tests compare chunks with native HDF5's. */
static inline herr_t ncztr_h5compat_read_chunk(hid_t dset, hid_t dxpl, const hsize_t *offset,
                                               uint32_t *filters, void *buf, size_t buf_size)
{
#if H5_VERSION_GE(2, 0, 0)
    return H5Dread_chunk2(dset, dxpl, offset, filters, buf, &buf_size);
#else
    (void)buf_size;
    return H5Dread_chunk(dset, dxpl, offset, filters, buf);
#endif
}

/* ---- the connector (vol_connector/) ---- */

/* The native connector's id, without a new reference. 1.14's H5VL_NATIVE is a call,
 * H5VL_native_register(), that registers the native connector if it is not; 2.x's reads the
 * global H5VL_NATIVE_g after H5OPEN, which starts the library if it has not started and does
 * nothing while it shuts down: a native object that the connector closes during the library's
 * shutdown (a proxy whose id outlived H5close's first steps) gets the id still held then, the
 * native connector being unregistered after every file, group, dataset, attribute and
 * datatype id is gone. */
static inline hid_t H5VL_nczarr_compat_native_id(void)
{
    return H5VL_NATIVE;
}

/* A new reference to this connector's registered id, or H5I_INVALID_HID: the caller closes
 * it with H5VLclose. H5VLget_connector_id_by_name exists in 1.14 and 2.x alike; the
 * borrowed-reference variant (H5VLpeek_connector_id_by_name) is gone in 2.0. */
static inline hid_t H5VL_nczarr_compat_connector_id(const char *name)
{
    return H5VLget_connector_id_by_name(name);
}

/* HDF5 1.14.6's deprecated reference calls (H5Rcreate, H5Rdereference2, ...: six in
 * H5Rdeprec.c) refuse an object of a non-native connector with HGOTO_ERROR(H5E_REFERENCE,
 * H5E_VOL, ...), a major message id given as the minor one. Clearing that entry from the
 * stack drops a reference to H5E_VOL that was never taken (H5E__clear_entries takes it for
 * an application's message): after as many refusals as H5E_VOL had references the message
 * is gone, every later clear stops half way and leaves entries whose strings it freed, and
 * the next H5Eprint2 recurses until the stack overflows (h5py, whose 1.10 API calls
 * H5Rcreate, crashed so in its own test suite). The connector keeps H5E_VOL at least
 * H5VL_NCZARR_H5E_VOL_LOW references ahead: given H5VL_NCZARR_H5E_VOL_HIGH when it starts,
 * topped up as every callback begins (one lookup when nothing is missing). HDF5's own
 * H5I_get_ref/H5I_inc_ref (exported by libhdf5, H5Iprivate.h, with the same signatures in
 * 1.14 and 2.0), not the API calls: an API call costs a context push each, and a million of
 * them took 20 ms of every process's start. Kept for 2.x too: the guard costs one lookup
 * where nothing is missing, and is harmless where 2.x no longer drops the reference. */
int H5I_get_ref(hid_t id, bool app_ref);
int H5I_inc_ref(hid_t id, bool app_ref);
#define H5VL_NCZARR_H5E_VOL_LOW  (1 << 17)
#define H5VL_NCZARR_H5E_VOL_HIGH (1 << 18)
static inline void H5VL_nczarr_compat_guard_h5e_vol(void)
{
    int n = H5I_get_ref(H5E_VOL_g, false); /* all references: a refusal drops one of those */
    if (n < 0 || n >= H5VL_NCZARR_H5E_VOL_LOW)
        return;
    for (; n < H5VL_NCZARR_H5E_VOL_HIGH; n++)
        if (H5I_inc_ref(H5E_VOL_g, true) < 0)
            break;
}

/* The H5T_t behind a datatype id. HDF5 takes a terminal connector's object of a committed
 * datatype for an H5T_t (H5T_get_actual_type, at the latest in H5T_top_term_package when
 * the library shuts down), so the connector hands it one; the public H5Iobject_verify
 * refuses library types, so this is HDF5's own H5I_object_verify, exported by libhdf5 in
 * 1.14 and 2.x alike (H5Iprivate.h). */
void *H5I_object_verify(hid_t id, H5I_type_t type);
static inline void *H5VL_nczarr_compat_type_object(hid_t type_id)
{
    return H5I_object_verify(type_id, H5I_DATATYPE);
}

#endif
