c     fspmd.f - a Fortran SPMD program for the integration suite:
c     built with -lfpvm3 against stock (-lgpvm3 -lpvm3) and libpvm3am;
c     fortran.sh runs it and compares what instance 0 prints.
c     The first task (started by hand with its own program name as the
c     argument) spawns NPROC-1 copies; all join a group, barrier, freeze
c     it, pass a token around the ring of instances, reduce with PvmSum,
c     and answer a broadcast.  pvmfsleep needs stock's pvmsleep.
      program fspmd
      implicit none
      include 'fpvm3.h'
      integer NPROC
      parameter (NPROC = 4)
      external PvmSum
      integer mytid, ptid, mtid, me, info, numt, bufid, i, n
      integer tids(0:NPROC-1), token, left, right, gsz
      double precision x, v(3), s
      character*64 prog
      character*24 grp

      call pvmfmytid(mytid)
      call pvmfparent(ptid)
      if (ptid .lt. 0) then
         mtid = mytid
      else
         mtid = ptid
      endif
      write(grp, '(a,z8.8)') 'fspmd.', mtid
      call pvmfjoingroup(grp, me)
      if (ptid .lt. 0) then
         call getarg(1, prog)
         call pvmfspawn(prog, PVMDEFAULT, '*', NPROC-1, tids(1), numt)
         if (numt .ne. NPROC-1) then
            print *, 'FAIL: spawned', numt
            call pvmfexit(info)
            stop 1
         endif
      endif
      call pvmfbarrier(grp, NPROC, info)
      call pvmffreezegroup(grp, NPROC, info)
      call pvmfgsize(grp, gsz)
      do i = 0, NPROC-1
         call pvmfgettid(grp, i, tids(i))
      enddo
      right = tids(mod(me + 1, NPROC))
      left = tids(mod(me + NPROC - 1, NPROC))
      if (me .eq. 0) then
         print '(a,i3,a,i3)', 'instance', me, ' group size', gsz
         print '(a,i3)', 'freeze info', info
      endif

c     token ring: every instance adds its number
      if (me .eq. 0) then
         token = 1
         call pvmfinitsend(PVMDEFAULT, bufid)
         call pvmfpack(INTEGER4, token, 1, 1, info)
         call pvmfsend(right, 10, info)
         call pvmfrecv(left, 10, bufid)
         call pvmfunpack(INTEGER4, token, 1, 1, info)
         print '(a,i5)', 'token after the ring', token
      else
         call pvmfrecv(left, 10, bufid)
         call pvmfunpack(INTEGER4, token, 1, 1, info)
         token = token + me
         call pvmfinitsend(PVMDEFAULT, bufid)
         call pvmfpack(INTEGER4, token, 1, 1, info)
         call pvmfsend(right, 10, info)
      endif

c     reduce: sum of (instance + 1) * 1.5 at instance 0
      x = (me + 1) * 1.5d0
      call pvmfreduce(PvmSum, x, 1, REAL8, 20, grp, 0, info)
      if (me .eq. 0) print '(a,f8.2,a,i3)', 'reduce sum', x,
     &   ' info', info

c     broadcast three doubles; each instance answers with a weighted sum
      if (me .eq. 0) then
         v(1) = 0.5d0
         v(2) = 2.0d0
         v(3) = -1.25d0
         call pvmfinitsend(PVMDEFAULT, bufid)
         call pvmfpack(REAL8, v, 3, 1, info)
         call pvmfbcast(grp, 30, info)
         print '(a,i3)', 'bcast info', info
         do i = 1, NPROC-1
            call pvmfrecv(tids(i), 31, bufid)
            call pvmfunpack(INTEGER4, n, 1, 1, info)
            call pvmfunpack(REAL8, s, 1, 1, info)
            print '(a,i3,a,f10.4)', 'instance', n, ' answers', s
         enddo
      else
         call pvmfrecv(tids(0), 30, bufid)
         call pvmfunpack(REAL8, v, 3, 1, info)
         s = me * v(1) + v(2) * v(3)
         call pvmfinitsend(PVMDEFAULT, bufid)
         call pvmfpack(INTEGER4, me, 1, 1, info)
         call pvmfpack(REAL8, s, 1, 1, info)
         call pvmfsend(tids(0), 31, info)
      endif

      call pvmfsleep(0)
      call pvmfbarrier(grp, NPROC, info)
      call pvmflvgroup(grp, info)
      if (me .eq. 0) print '(a,i3)', 'leave info', info
      if (me .eq. 0) print '(a)', 'PASS'
      call pvmfexit(info)
      end
