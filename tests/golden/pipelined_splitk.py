def kernel(a, b, c):
    red = cuda.shared.array(1536, float32)  # groups 1… leave their sums here for group 0
    sA = cuda.shared.array(2048, float32, alignment=16)  # A transposed: BK×BM per stage
    sB = cuda.shared.array(4096, float32, alignment=16)  # B: BK×BN per stage
    M = u32(a.shape[0])
    N = u32(b.shape[1])
    KA = u32(a.shape[1])  # all of k: the length of A's rows
    ks = u32(((KA + u32(3)) // u32(4) + u32(31)) // u32(32) * u32(32))  # k per slice, in whole tiles
    z = u32(cuda.blockIdx.z)
    k0 = u32(min(z * ks, KA))  # this slice's first k
    K = u32(min(KA - k0, ks))  # its length (0 for a slice past the end of k)
    zm = u32(z * M)  # its first row in c
    vec = True  # every row of a, b, c starts on a 16-byte boundary: 16-byte global loads and stores
    tid = u32(cuda.threadIdx.x)
    bm0 = u32(u32(cuda.blockIdx.y) * u32(16))
    bn0 = u32(u32(cuda.blockIdx.x) * u32(32))
    bw = u32(tid >> u32(5))  # the warp in the block
    g = u32(bw // u32(1))  # its group, which computes steps g·8…g·8+7 of each k-tile
    warp = u32(bw % u32(1))  # its warp tile
    lane = u32(tid & u32(31))
    kA = u32(g * u32(128))
    kB = u32(g * u32(256))  # the group's first step in a stage
    # the thread's first row and column in the block tile; its sub-tiles are WSUBM rows / WSUBN columns apart
    tr = u32((warp // u32(1)) * u32(16) + (lane // u32(8)) * u32(4))
    tc = u32((warp % u32(1)) * u32(32) + (lane % u32(8)) * u32(4))
    # its 16-byte chunks of each tile: A rows ra + i*RSA, columns ca..ca+3; B rows rb + i*RSB, columns cb..cb+3
    ra = u32(tid // u32(8))
    ca = u32((tid % u32(8)) * u32(4))
    rb = u32(tid // u32(8))
    cb = u32((tid % u32(8)) * u32(4))
    wa = u32(ca * u32(16) + ra)
    wb = u32(rb * u32(32) + cb)
    acc = cuda.local.array(16, float32)  # RM×RN results; constant indices keep them in registers
    acc[0] = float32(0)
    acc[1] = float32(0)
    acc[2] = float32(0)
    acc[3] = float32(0)
    acc[4] = float32(0)
    acc[5] = float32(0)
    acc[6] = float32(0)
    acc[7] = float32(0)
    acc[8] = float32(0)
    acc[9] = float32(0)
    acc[10] = float32(0)
    acc[11] = float32(0)
    acc[12] = float32(0)
    acc[13] = float32(0)
    acc[14] = float32(0)
    acc[15] = float32(0)
    ntiles = u32((K + u32(31)) // u32(32))
    if ntiles > u32(0):
        sh = u32(ntiles * u32(32) - K)  # the first tile holds the K % BK remainder, after sh zero columns
        # offsets of the thread's chunks; rows past M re-read row M-1 and columns past N column N-1:
        # they only feed results that are never stored
        ga0 = u64(min(bm0 + ra + u32(0), M - u32(1))) * u64(KA) + u64(k0 + ca)
        bcol = min(bn0 + cb, N - u32(1) - u32(3) * u32(vec))
        nb = min(N - bcol, u32(4))  # columns of B's chunk inside B
        lo = u32(max(sh, ca) - ca)  # first column of A's chunk inside the first tile
        gb0 = u64(k0 + rb + u32(0)) * u64(N) + u64(bcol)
        gb1 = u64(k0 + rb + u32(16)) * u64(N) + u64(bcol)
        # the first tile, the only one with bounds checks
        xa0 = ldg4x(True, vec, a, ga0 - u64(sh), lo, u32(4))
        xb0 = ldg4x(rb + u32(0) >= sh, vec, b, gb0 - u64(sh) * u64(N), u32(0), nb)
        xb1 = ldg4x(rb + u32(16) >= sh, vec, b, gb1 - u64(sh) * u64(N), u32(0), nb)
        kb = u64(u32(32) - sh)  # first column of A / row of B of the next tile
        pa0 = ga0 + kb
        pb0 = gb0 + kb * u64(N)
        pb1 = gb1 + kb * u64(N)
        # the prologue: tiles 1..2 in flight into stages 1..2, one group each, issued while tile 0's
        # loads are still on their way: the block waits for memory once before its first k-tile, not twice
        if ntiles > u32(1):
            cp_async4(sA, u32(512) + wa + u32(0), a, pa0 + u64(0))
            cp_async4(sA, u32(512) + wa + u32(16), a, pa0 + u64(1))
            cp_async4(sA, u32(512) + wa + u32(32), a, pa0 + u64(2))
            cp_async4(sA, u32(512) + wa + u32(48), a, pa0 + u64(3))
            cp_async16(sB, u32(1024) + wb + u32(0), b, pb0)
            cp_async16(sB, u32(1024) + wb + u32(512), b, pb1)
        cp_commit()
        pa0 += u64(32)
        pb0 += u64(32) * u64(N)
        pb1 += u64(32) * u64(N)
        if ntiles > u32(2):
            cp_async4(sA, u32(1024) + wa + u32(0), a, pa0 + u64(0))
            cp_async4(sA, u32(1024) + wa + u32(16), a, pa0 + u64(1))
            cp_async4(sA, u32(1024) + wa + u32(32), a, pa0 + u64(2))
            cp_async4(sA, u32(1024) + wa + u32(48), a, pa0 + u64(3))
            cp_async16(sB, u32(2048) + wb + u32(0), b, pb0)
            cp_async16(sB, u32(2048) + wb + u32(512), b, pb1)
        cp_commit()
        pa0 += u64(32)
        pb0 += u64(32) * u64(N)
        pb1 += u64(32) * u64(N)
        sA[wa + u32(0)] = xa0[0]
        sA[wa + u32(16)] = xa0[1]
        sA[wa + u32(32)] = xa0[2]
        sA[wa + u32(48)] = xa0[3]
        sts4(sB, wb + u32(0), xb0[0], xb0[1], xb0[2], xb0[3])
        sts4(sB, wb + u32(512), xb1[0], xb1[1], xb1[2], xb1[3])
        soA = u32(0)
        soB = u32(0)  # the stage being computed
        woA = u32(1536)
        woB = u32(3072)  # the stage being filled
        tn = u32(3)  # the tile being fetched
        for t in range(ntiles):
            cp_wait(2)  # this thread's copies of tile t have landed
            cuda.syncthreads()  # everyone's have, and everyone is done with tile t-1: its stage is free
            if tn < ntiles:
                cp_async4(sA, woA + wa + u32(0), a, pa0 + u64(0))
                cp_async4(sA, woA + wa + u32(16), a, pa0 + u64(1))
                cp_async4(sA, woA + wa + u32(32), a, pa0 + u64(2))
                cp_async4(sA, woA + wa + u32(48), a, pa0 + u64(3))
                cp_async16(sB, woB + wb + u32(0), b, pb0)
                cp_async16(sB, woB + wb + u32(512), b, pb1)
            cp_commit()
            pa0 += u64(32)
            pb0 += u64(32) * u64(N)
            pb1 += u64(32) * u64(N)
            rA = u32(soA + tr + kA)
            rB = u32(soB + tc + kB)
            # the group's 8 steps written out; step k+1's fragments are loaded before step k's multiply-adds
            fa0_0 = lds4(sA, rA + u32(0))
            fb0_0 = lds4(sB, rB + u32(0))
            fa1_0 = lds4(sA, rA + u32(16) + u32(0))
            fb1_0 = lds4(sB, rB + u32(32) + u32(0))
            outer(acc, (fa0_0,), (fb0_0,))
            fa2_0 = lds4(sA, rA + u32(32) + u32(0))
            fb2_0 = lds4(sB, rB + u32(64) + u32(0))
            outer(acc, (fa1_0,), (fb1_0,))
            fa3_0 = lds4(sA, rA + u32(48) + u32(0))
            fb3_0 = lds4(sB, rB + u32(96) + u32(0))
            outer(acc, (fa2_0,), (fb2_0,))
            fa4_0 = lds4(sA, rA + u32(64) + u32(0))
            fb4_0 = lds4(sB, rB + u32(128) + u32(0))
            outer(acc, (fa3_0,), (fb3_0,))
            fa5_0 = lds4(sA, rA + u32(80) + u32(0))
            fb5_0 = lds4(sB, rB + u32(160) + u32(0))
            outer(acc, (fa4_0,), (fb4_0,))
            fa6_0 = lds4(sA, rA + u32(96) + u32(0))
            fb6_0 = lds4(sB, rB + u32(192) + u32(0))
            outer(acc, (fa5_0,), (fb5_0,))
            fa7_0 = lds4(sA, rA + u32(112) + u32(0))
            fb7_0 = lds4(sB, rB + u32(224) + u32(0))
            outer(acc, (fa6_0,), (fb6_0,))
            outer(acc, (fa7_0,), (fb7_0,))
            soA = u32(0) if soA == u32(1536) else u32(soA + u32(512))
            soB = u32(0) if soB == u32(3072) else u32(soB + u32(1024))
            woA = u32(0) if woA == u32(1536) else u32(woA + u32(512))
            woB = u32(0) if woB == u32(3072) else u32(woB + u32(1024))
            tn = u32(tn + u32(1))
    # groups 1… leave their partial sums in `red` (thread t0 of a group: floats t0, t0 + threads, …), group 0
    # adds them in group order and alone writes C: the other groups' rows are put past M
    t0 = u32(tid % u32(32))
    if g > u32(0):
        red[(g - u32(1)) * u32(512) + u32(0) + t0] = acc[0]
        red[(g - u32(1)) * u32(512) + u32(32) + t0] = acc[1]
        red[(g - u32(1)) * u32(512) + u32(64) + t0] = acc[2]
        red[(g - u32(1)) * u32(512) + u32(96) + t0] = acc[3]
        red[(g - u32(1)) * u32(512) + u32(128) + t0] = acc[4]
        red[(g - u32(1)) * u32(512) + u32(160) + t0] = acc[5]
        red[(g - u32(1)) * u32(512) + u32(192) + t0] = acc[6]
        red[(g - u32(1)) * u32(512) + u32(224) + t0] = acc[7]
        red[(g - u32(1)) * u32(512) + u32(256) + t0] = acc[8]
        red[(g - u32(1)) * u32(512) + u32(288) + t0] = acc[9]
        red[(g - u32(1)) * u32(512) + u32(320) + t0] = acc[10]
        red[(g - u32(1)) * u32(512) + u32(352) + t0] = acc[11]
        red[(g - u32(1)) * u32(512) + u32(384) + t0] = acc[12]
        red[(g - u32(1)) * u32(512) + u32(416) + t0] = acc[13]
        red[(g - u32(1)) * u32(512) + u32(448) + t0] = acc[14]
        red[(g - u32(1)) * u32(512) + u32(480) + t0] = acc[15]
    cuda.syncthreads()
    if g == u32(0):
        acc[0] += red[u32(0) + t0]
        acc[1] += red[u32(32) + t0]
        acc[2] += red[u32(64) + t0]
        acc[3] += red[u32(96) + t0]
        acc[4] += red[u32(128) + t0]
        acc[5] += red[u32(160) + t0]
        acc[6] += red[u32(192) + t0]
        acc[7] += red[u32(224) + t0]
        acc[8] += red[u32(256) + t0]
        acc[9] += red[u32(288) + t0]
        acc[10] += red[u32(320) + t0]
        acc[11] += red[u32(352) + t0]
        acc[12] += red[u32(384) + t0]
        acc[13] += red[u32(416) + t0]
        acc[14] += red[u32(448) + t0]
        acc[15] += red[u32(480) + t0]
        acc[0] += red[u32(512) + t0]
        acc[1] += red[u32(544) + t0]
        acc[2] += red[u32(576) + t0]
        acc[3] += red[u32(608) + t0]
        acc[4] += red[u32(640) + t0]
        acc[5] += red[u32(672) + t0]
        acc[6] += red[u32(704) + t0]
        acc[7] += red[u32(736) + t0]
        acc[8] += red[u32(768) + t0]
        acc[9] += red[u32(800) + t0]
        acc[10] += red[u32(832) + t0]
        acc[11] += red[u32(864) + t0]
        acc[12] += red[u32(896) + t0]
        acc[13] += red[u32(928) + t0]
        acc[14] += red[u32(960) + t0]
        acc[15] += red[u32(992) + t0]
        acc[0] += red[u32(1024) + t0]
        acc[1] += red[u32(1056) + t0]
        acc[2] += red[u32(1088) + t0]
        acc[3] += red[u32(1120) + t0]
        acc[4] += red[u32(1152) + t0]
        acc[5] += red[u32(1184) + t0]
        acc[6] += red[u32(1216) + t0]
        acc[7] += red[u32(1248) + t0]
        acc[8] += red[u32(1280) + t0]
        acc[9] += red[u32(1312) + t0]
        acc[10] += red[u32(1344) + t0]
        acc[11] += red[u32(1376) + t0]
        acc[12] += red[u32(1408) + t0]
        acc[13] += red[u32(1440) + t0]
        acc[14] += red[u32(1472) + t0]
        acc[15] += red[u32(1504) + t0]
    M = u32(M if g == u32(0) else u32(0))
    # write the RM×RN results, guarded at the edges
    cc0 = u32(bn0 + tc + u32(0))
    nc0 = min(N - cc0, u32(4))
    row = u32(bm0 + tr + u32(0))
    ro = u64(zm + row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[0], acc[1], acc[2], acc[3])
    row = u32(bm0 + tr + u32(1))
    ro = u64(zm + row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[4], acc[5], acc[6], acc[7])
    row = u32(bm0 + tr + u32(2))
    ro = u64(zm + row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[8], acc[9], acc[10], acc[11])
    row = u32(bm0 + tr + u32(3))
    ro = u64(zm + row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[12], acc[13], acc[14], acc[15])
