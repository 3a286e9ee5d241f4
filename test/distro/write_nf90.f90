! netCDF-Fortran (nf90_*) writes a netCDF-4 dataset: an unlimited dimension, a fill value,
! attributes of one value and text, global and per variable.
!   write_nf90 OUT
program write_nf90
  use netcdf
  implicit none
  integer :: nc, dt, dx, vt, vv, i
  real :: v(5, 2)
  character(len=256) :: out
  call get_command_argument(1, out)
  v = reshape([(real(i) / 2, i = 1, 10)], [5, 2])
  call check(nf90_create(trim(out), NF90_NETCDF4, nc))
  call check(nf90_def_dim(nc, "time", NF90_UNLIMITED, dt))
  call check(nf90_def_dim(nc, "x", 5, dx))
  call check(nf90_def_var(nc, "time", NF90_DOUBLE, [dt], vt))
  call check(nf90_put_att(nc, vt, "units", "days since 1999-12-31"))
  call check(nf90_def_var(nc, "values", NF90_FLOAT, [dx, dt], vv))
  call check(nf90_def_var_fill(nc, vv, 0, -1.0e30))
  call check(nf90_put_att(nc, vv, "units", "m"))
  call check(nf90_put_att(nc, vv, "factor", 2.0d0))
  call check(nf90_put_att(nc, vv, "level", 3))
  call check(nf90_put_att(nc, NF90_GLOBAL, "title", "netCDF-Fortran"))
  call check(nf90_put_att(nc, NF90_GLOBAL, "year", 2024))
  call check(nf90_enddef(nc))
  call check(nf90_put_var(nc, vt, [1.0d0, 2.0d0]))
  call check(nf90_put_var(nc, vv, v))
  call check(nf90_close(nc))
contains
  subroutine check(status)
    integer, intent(in) :: status
    if (status /= nf90_noerr) then
      print *, "FAIL: ", trim(nf90_strerror(status))
      stop 1
    end if
  end subroutine
end program
