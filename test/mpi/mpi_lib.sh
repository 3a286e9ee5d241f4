# shellcheck shell=bash
# mpi_run N LOG PROGRAM ARGS...: OpenMPI's mpirun with N ranks on whatever cores there are
# (oversubscribed), allowed as root (CI runs as root), its output in LOG, shown on failure.
# The programs are built here (with the sanitizers, in those builds): nothing is preloaded,
# neither into them nor into mpirun, whose own code the sanitizers are not for.
mpi_run() {
  local n=$1 log=$2
  shift 2
  if env LD_PRELOAD= OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
     timeout 300 mpirun -n "$n" "$@" >"$log" 2>&1; then
    return 0
  fi
  sed 's/^/    | /' "$log"
  return 1
}

# mpi_run_native N LOG PROGRAM ARGS...: the same, natively (no connector; HDF5's and netCDF-C's
# own files).
mpi_run_native() {
  (
    unset HDF5_VOL_CONNECTOR
    export HDF5_PLUGIN_PATH="$NCZARR_PREFIX/lib/plugin"
    mpi_run "$@"
  )
}
