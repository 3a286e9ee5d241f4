/* bench_codecs: what the driver (bench_codecs.c) and the C peers (bench_codecs_peers.c)
 * share. Every peer writes the same array (rows x cols float32, chunks crows x ccols), in
 * calls of slab_rows whole rows, from nslabs distinct source slabs cycled, and reads it back
 * in calls of the same size. */
#ifndef BENCH_CODECS_H
#define BENCH_CODECS_H

#include "bench_retire.h"
#include <stddef.h>

typedef enum { CASE_RAW, CASE_DEFLATE, CASE_BLOSC, CASE_ZSTD, NCASES } bench_case;
/* The Python peers (bench_zarr3.py --impl) are PEER_ZARR3 to PEER_ZARRS. PEER_BASE is the
 * connector of another build (--base-connector-dir), an earlier commit's, the same HDF5
 * program as PEER_NCZARR: a change's effect measured in one run, both in the same state of
 * the machine. */
typedef enum {
    PEER_NCZARR,
    PEER_NATIVE,
    PEER_NETCDF,
    PEER_ZARR3,
    PEER_TS,
    PEER_ZARRS,
    PEER_BASE,
    NPEERS
} bench_peer;
#define BENCH_PYTHON_PEER(p)    ((p) >= PEER_ZARR3 && (p) <= PEER_ZARRS)
#define BENCH_CONNECTOR_PEER(p) ((p) == PEER_NCZARR || (p) == PEER_BASE)

typedef struct {
    char dir[4200];         /* where stores are written (absolute) */
    char src_path[4300];    /* the source slabs: nslabs x slab_rows x cols float32 LE */
    size_t rows, cols;      /* the array */
    size_t crows, ccols;    /* its chunks */
    size_t slab_rows;       /* rows per H5Dwrite / H5Dread (and the peers' equivalents) */
    size_t nslabs;          /* distinct source slabs */
    int zstd_level;         /* zstd's level, every peer */
    const char *filter_dir; /* HDF5 filter plugins (blosc, zstd): netCDF-C's lib/plugin */
    const char *conn_dir;   /* where HDF5 finds the connector */
    const char *base_dir;   /* where HDF5 finds the base peer's connector (NULL: no base peer) */
    const char *python;     /* the Python peers' interpreter (zarr-python 3, zarrs, tensorstore) */
    const char *script;     /* bench_zarr3.py */
    int zarr_format;        /* 2 (default) or 3: what the connector and zarr-python 3 write */
    int shards;             /* Zarr v3: shards of shards x shards chunks (0: none) */
    char s3[2048];          /* stores in a bucket: https://host:port/bucket/prefix ("": --dir) */
    const char *s3_options; /* zarr-python's storage options for s3fs (JSON), with s3 */
    int floor;              /* also time the write and read floors of the connector's store (--floor) */
    int tmpfs;              /* dir is a tmpfs (memory) */
    int server_pid[8];      /* the S3 server's processes, whose CPU time is counted */
    int nserver;            /* (--server-pids; 0: not counted) */
    long buf_offset;        /* the C peers' and the floor's buffers: bytes into a page (-1: malloc's) */
    double settle;          /* seconds every write waits after the last store was removed */
    int hold;               /* removed stores are emptied and kept until the bench ends (bench_retire.c) */
    double inode_wait;      /* a bench starts that long after the last one removed its stores */
} bench_cfg;

/* A buffer of bytes offset bytes into a page (offset < 0: where malloc puts it); *base is
 * what to free. NULL when out of memory. */
void *bench_placed(size_t bytes, long offset, void **base);
/* A buffer of bytes for a C peer or a floor, where --buffer-offset puts it. */
void *bench_buffer(const bench_cfg *cfg, size_t bytes, void **base);

/* Runs one phase (0 write, 1 read) of one C peer in the calling process, which must be a
 * fresh child: the HDF5 and netCDF-C libraries are first initialised here, after the
 * environment was set. workers > 0 asks the connector for that many workers. Returns 0 and
 * the timed seconds, or -1 and a message. */
int bench_run_c_peer(const bench_cfg *cfg, bench_peer peer, bench_case c, int phase, int workers,
                     double *secs, char *msg, size_t msg_size);

/* The path of a peer's store for a case: a path under dir, or with s3 the connector's URL
 * (https://host:port/bucket/prefix/name#mode=nczarr,s3) and zarr-python's s3://bucket/... */
void bench_store_path(const bench_cfg *cfg, bench_peer peer, char *buf, size_t size);
/* With s3: a peer's store as s3fs names it (s3://bucket/prefix/name). */
void bench_s3_path(const bench_cfg *cfg, bench_peer peer, char *buf, size_t size);

/* Sets the environment a peer's child runs under (HDF5_PLUGIN_PATH, HDF5_VOL_CONNECTOR).
 * Returns 0, or -1 when out of memory. */
int bench_peer_env(const bench_cfg *cfg, bench_peer peer);

int bench_have_netcdf(void);

/* The read floor of the directory store at store (bench_floor.c): its chunk objects read
 * with pread, decoded and copied into a slab, on every core. Returns 0 and the seconds, or
 * -1 and a message. */
int bench_read_floor(const bench_cfg *cfg, bench_case c, const char *store, double *secs, char *msg,
                     size_t msg_size);
/* Runs fn on n threads (at most 64), thread i given args + i * arg_size; returns how many
 * started and the seconds until all had finished (bench_floor.c). */
int bench_threads(int n, void *(*fn)(void *), void *args, size_t arg_size, double *secs);
/* A floor's outcome: 0 and *secs = run_secs when it ran (ran) and did not fail (failed:
 * its message, or NULL); else -1 and the message. */
int bench_floor_result(int ran, const char *failed, double run_secs, double *secs, char *msg,
                       size_t msg_size);
/* The write floor (bench_wfloor.c): the array stored in the connector's layout in the new
 * directory dir (removed by the caller) with write(2), the chunks compressed, on every
 * core. Returns 0 and the seconds, or -1 and a message. */
int bench_write_floor(const bench_cfg *cfg, bench_case c, const char *dir, double *secs, char *msg,
                      size_t msg_size);

#endif
