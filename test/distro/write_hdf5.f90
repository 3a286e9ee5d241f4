! HDF5's Fortran API writes a dataset the way Fortran programs do: chunked with an
! unlimited dimension, a fill value, attributes of one value (scalar and 1-element) and text.
!   write_hdf5 OUT
program write_hdf5
  use hdf5
  implicit none
  integer(hid_t) :: file, space, dset, dcpl, aspace, attr, atype
  integer(hsize_t) :: dims(2) = [4, 3], maxdims(2), chunk(2) = [4, 1], one(1) = [1]
  integer :: err, data(4, 3), i, j
  character(len=256) :: out
  call get_command_argument(1, out)
  do j = 1, 3
    do i = 1, 4
      data(i, j) = 10 * j + i
    end do
  end do
  call h5open_f(err)
  maxdims = [4_hsize_t, H5S_UNLIMITED_F] ! H5S_UNLIMITED_F is set by h5open_f
  call h5fcreate_f(trim(out), H5F_ACC_TRUNC_F, file, err)
  call check(err, "h5fcreate_f")
  call h5screate_simple_f(2, dims, space, err, maxdims)
  call check(err, "h5screate_simple_f")
  call h5pcreate_f(H5P_DATASET_CREATE_F, dcpl, err)
  call h5pset_chunk_f(dcpl, 2, chunk, err)
  call h5pset_fill_value_f(dcpl, H5T_NATIVE_INTEGER, -99, err)
  call h5dcreate_f(file, "counts", H5T_NATIVE_INTEGER, space, dset, err, dcpl)
  call check(err, "h5dcreate_f")
  call h5dwrite_f(dset, H5T_NATIVE_INTEGER, data, dims, err)
  call check(err, "h5dwrite_f")
  ! an attribute of one value in a 1-element simple dataspace (as netCDF writes them)
  call h5screate_simple_f(1, one, aspace, err)
  call h5acreate_f(dset, "scale", H5T_NATIVE_DOUBLE, aspace, attr, err)
  call h5awrite_f(attr, H5T_NATIVE_DOUBLE, [0.5d0], one, err)
  call h5aclose_f(attr, err)
  call h5sclose_f(aspace, err)
  ! a scalar attribute
  call h5screate_f(H5S_SCALAR_F, aspace, err)
  call h5acreate_f(dset, "offset", H5T_NATIVE_INTEGER, aspace, attr, err)
  call h5awrite_f(attr, H5T_NATIVE_INTEGER, 3, one, err)
  call h5aclose_f(attr, err)
  ! a text attribute (fixed length, scalar)
  call h5tcopy_f(H5T_FORTRAN_S1, atype, err)
  call h5tset_size_f(atype, 7_size_t, err)
  call h5acreate_f(file, "origin", atype, aspace, attr, err)
  call h5awrite_f(attr, atype, "fortran", one, err)
  call check(err, "h5awrite_f")
  call h5aclose_f(attr, err)
  call h5tclose_f(atype, err)
  call h5sclose_f(aspace, err)
  call h5pclose_f(dcpl, err)
  call h5dclose_f(dset, err)
  call h5sclose_f(space, err)
  call h5fclose_f(file, err)
  call check(err, "h5fclose_f")
  call h5close_f(err)
contains
  subroutine check(e, what)
    integer, intent(in) :: e
    character(len=*), intent(in) :: what
    if (e /= 0) then
      print *, "FAIL: ", what
      stop 1
    end if
  end subroutine
end program
