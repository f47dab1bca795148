def kernel(a, b, c):
    sA = cuda.shared.array(1024, float32, alignment=16)  # A transposed: BK×BM per stage
    sB = cuda.shared.array(1024, float32, alignment=16)  # B: BK×BN per stage
    M = u32(a.shape[1])
    N = u32(b.shape[2])
    KA = u32(a.shape[2])  # all of k: the length of A's rows
    ks = u32(((KA + u32(3)) // u32(4) + u32(15)) // u32(16) * u32(16))  # k per slice, in whole tiles
    z = u32(cuda.blockIdx.z % u32(4))  # the slice; blockIdx.z // 4: the product
    k0 = u32(min(z * ks, KA))  # this slice's first k
    K = u32(min(KA - k0, ks))  # its length (0 for a slice past the end of k)
    p = u32(cuda.blockIdx.z // u32(4))  # this block's product of the batch
    # its matrices of a and b: matrix p, or the only one (an operand of one matrix is broadcast)
    za = u64(min(p, u32(a.shape[0]) - u32(1))) * u64(M) * u64(KA)
    zb = u64(min(p, u32(b.shape[0]) - u32(1))) * u64(KA) * u64(N)
    zc = u64(z * (u32(cuda.gridDim.z) // u32(4)) + p) * u64(M) * u64(N)  # slice z of product p
    vec = True  # every row of a, b, c starts on a 16-byte boundary: 16-byte global loads and stores
    tid = u32(cuda.threadIdx.x)
    bm0 = u32(u32(cuda.blockIdx.y) * u32(64))
    bn0 = u32(u32(cuda.blockIdx.x) * u32(64))
    warp = u32(tid >> u32(5))
    lane = u32(tid & u32(31))
    # the thread's first row and column in the block tile; its sub-tiles are WSUBM rows / WSUBN columns apart
    tr = u32((warp // u32(2)) * u32(32) + (lane // u32(4)) * u32(4))
    tc = u32((warp % u32(2)) * u32(32) + (lane % u32(4)) * u32(4))
    # its 16-byte chunks of each tile: A rows ra + i*RSA, columns ca..ca+3; B rows rb + i*RSB, columns cb..cb+3
    ra = u32(tid // u32(4))
    ca = u32((tid % u32(4)) * u32(4))
    rb = u32(tid // u32(16))
    cb = u32((tid % u32(16)) * u32(4))
    wa = u32(ca * u32(64) + ra)
    wb = u32(rb * u32(64) + cb)
    acc = cuda.local.array(32, float32)  # RM×RN results; constant indices keep them in registers
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
    acc[16] = float32(0)
    acc[17] = float32(0)
    acc[18] = float32(0)
    acc[19] = float32(0)
    acc[20] = float32(0)
    acc[21] = float32(0)
    acc[22] = float32(0)
    acc[23] = float32(0)
    acc[24] = float32(0)
    acc[25] = float32(0)
    acc[26] = float32(0)
    acc[27] = float32(0)
    acc[28] = float32(0)
    acc[29] = float32(0)
    acc[30] = float32(0)
    acc[31] = float32(0)
    ntiles = u32((K + u32(15)) // u32(16))
    if ntiles > u32(0):
        sh = u32(ntiles * u32(16) - K)  # the first tile holds the K % BK remainder, after sh zero columns
        # offsets of the thread's chunks; rows past M re-read row M-1 and columns past N column N-1:
        # they only feed results that are never stored
        ga0 = za + u64(min(bm0 + ra + u32(0), M - u32(1))) * u64(KA) + u64(k0 + ca)
        ga1 = za + u64(min(bm0 + ra + u32(32), M - u32(1))) * u64(KA) + u64(k0 + ca)
        bcol = min(bn0 + cb, N - u32(1) - u32(3) * u32(vec))
        nb = min(N - bcol, u32(4))  # columns of B's chunk inside B
        lo = u32(max(sh, ca) - ca)  # first column of A's chunk inside the first tile
        gb0 = zb + u64(k0 + rb + u32(0)) * u64(N) + u64(bcol)
        gb1 = zb + u64(k0 + rb + u32(8)) * u64(N) + u64(bcol)
        # the first tile, the only one with bounds checks
        xa0 = ldg4x(True, vec, a, ga0 - u64(sh), lo, u32(4))
        xa1 = ldg4x(True, vec, a, ga1 - u64(sh), lo, u32(4))
        xb0 = ldg4x(rb + u32(0) >= sh, vec, b, gb0 - u64(sh) * u64(N), u32(0), nb)
        xb1 = ldg4x(rb + u32(8) >= sh, vec, b, gb1 - u64(sh) * u64(N), u32(0), nb)
        sA[wa + u32(0)] = xa0[0]
        sA[wa + u32(64)] = xa0[1]
        sA[wa + u32(128)] = xa0[2]
        sA[wa + u32(192)] = xa0[3]
        sA[wa + u32(32)] = xa1[0]
        sA[wa + u32(96)] = xa1[1]
        sA[wa + u32(160)] = xa1[2]
        sA[wa + u32(224)] = xa1[3]
        sts4(sB, wb + u32(0), xb0[0], xb0[1], xb0[2], xb0[3])
        sts4(sB, wb + u32(512), xb1[0], xb1[1], xb1[2], xb1[3])
        cuda.syncthreads()
        kb = u64(u32(16) - sh)  # first column of A / row of B of the next tile
        pa0 = ga0 + kb
        pa1 = ga1 + kb
        pb0 = gb0 + kb * u64(N)
        pb1 = gb1 + kb * u64(N)
        for t in range(ntiles - u32(1)):  # every tile but the last: each has a next one
            # the next tile's global loads, issued now: they land while this tile computes
            xa0 = ldg4x(True, vec, a, pa0, u32(0), u32(4))
            xa1 = ldg4x(True, vec, a, pa1, u32(0), u32(4))
            xb0 = ldg4x(True, vec, b, pb0, u32(0), u32(4))
            xb1 = ldg4x(True, vec, b, pb1, u32(0), u32(4))
            rA = tr
            rB = tc
            # the k-tile written out; step k+1's fragments are loaded before step k's multiply-adds
            fa0_0 = lds4(sA, rA + u32(0))
            fb0_0 = lds4(sB, rB + u32(0))
            fb0_1 = lds4(sB, rB + u32(16))
            fa1_0 = lds4(sA, rA + u32(64) + u32(0))
            fb1_0 = lds4(sB, rB + u32(64) + u32(0))
            fb1_1 = lds4(sB, rB + u32(64) + u32(16))
            outer(acc, (fa0_0,), (fb0_0, fb0_1,))
            fa2_0 = lds4(sA, rA + u32(128) + u32(0))
            fb2_0 = lds4(sB, rB + u32(128) + u32(0))
            fb2_1 = lds4(sB, rB + u32(128) + u32(16))
            outer(acc, (fa1_0,), (fb1_0, fb1_1,))
            fa3_0 = lds4(sA, rA + u32(192) + u32(0))
            fb3_0 = lds4(sB, rB + u32(192) + u32(0))
            fb3_1 = lds4(sB, rB + u32(192) + u32(16))
            outer(acc, (fa2_0,), (fb2_0, fb2_1,))
            fa4_0 = lds4(sA, rA + u32(256) + u32(0))
            fb4_0 = lds4(sB, rB + u32(256) + u32(0))
            fb4_1 = lds4(sB, rB + u32(256) + u32(16))
            outer(acc, (fa3_0,), (fb3_0, fb3_1,))
            fa5_0 = lds4(sA, rA + u32(320) + u32(0))
            fb5_0 = lds4(sB, rB + u32(320) + u32(0))
            fb5_1 = lds4(sB, rB + u32(320) + u32(16))
            outer(acc, (fa4_0,), (fb4_0, fb4_1,))
            fa6_0 = lds4(sA, rA + u32(384) + u32(0))
            fb6_0 = lds4(sB, rB + u32(384) + u32(0))
            fb6_1 = lds4(sB, rB + u32(384) + u32(16))
            outer(acc, (fa5_0,), (fb5_0, fb5_1,))
            fa7_0 = lds4(sA, rA + u32(448) + u32(0))
            fb7_0 = lds4(sB, rB + u32(448) + u32(0))
            fb7_1 = lds4(sB, rB + u32(448) + u32(16))
            outer(acc, (fa6_0,), (fb6_0, fb6_1,))
            fa8_0 = lds4(sA, rA + u32(512) + u32(0))
            fb8_0 = lds4(sB, rB + u32(512) + u32(0))
            fb8_1 = lds4(sB, rB + u32(512) + u32(16))
            outer(acc, (fa7_0,), (fb7_0, fb7_1,))
            fa9_0 = lds4(sA, rA + u32(576) + u32(0))
            fb9_0 = lds4(sB, rB + u32(576) + u32(0))
            fb9_1 = lds4(sB, rB + u32(576) + u32(16))
            outer(acc, (fa8_0,), (fb8_0, fb8_1,))
            fa10_0 = lds4(sA, rA + u32(640) + u32(0))
            fb10_0 = lds4(sB, rB + u32(640) + u32(0))
            fb10_1 = lds4(sB, rB + u32(640) + u32(16))
            outer(acc, (fa9_0,), (fb9_0, fb9_1,))
            fa11_0 = lds4(sA, rA + u32(704) + u32(0))
            fb11_0 = lds4(sB, rB + u32(704) + u32(0))
            fb11_1 = lds4(sB, rB + u32(704) + u32(16))
            outer(acc, (fa10_0,), (fb10_0, fb10_1,))
            fa12_0 = lds4(sA, rA + u32(768) + u32(0))
            fb12_0 = lds4(sB, rB + u32(768) + u32(0))
            fb12_1 = lds4(sB, rB + u32(768) + u32(16))
            outer(acc, (fa11_0,), (fb11_0, fb11_1,))
            fa13_0 = lds4(sA, rA + u32(832) + u32(0))
            fb13_0 = lds4(sB, rB + u32(832) + u32(0))
            fb13_1 = lds4(sB, rB + u32(832) + u32(16))
            outer(acc, (fa12_0,), (fb12_0, fb12_1,))
            fa14_0 = lds4(sA, rA + u32(896) + u32(0))
            fb14_0 = lds4(sB, rB + u32(896) + u32(0))
            fb14_1 = lds4(sB, rB + u32(896) + u32(16))
            outer(acc, (fa13_0,), (fb13_0, fb13_1,))
            fa15_0 = lds4(sA, rA + u32(960) + u32(0))
            fb15_0 = lds4(sB, rB + u32(960) + u32(0))
            fb15_1 = lds4(sB, rB + u32(960) + u32(16))
            outer(acc, (fa14_0,), (fb14_0, fb14_1,))
            outer(acc, (fa15_0,), (fb15_0, fb15_1,))
            cuda.syncthreads()  # everyone is done reading the tile
            sA[wa + u32(0)] = xa0[0]
            sA[wa + u32(64)] = xa0[1]
            sA[wa + u32(128)] = xa0[2]
            sA[wa + u32(192)] = xa0[3]
            sA[wa + u32(32)] = xa1[0]
            sA[wa + u32(96)] = xa1[1]
            sA[wa + u32(160)] = xa1[2]
            sA[wa + u32(224)] = xa1[3]
            sts4(sB, wb + u32(0), xb0[0], xb0[1], xb0[2], xb0[3])
            sts4(sB, wb + u32(512), xb1[0], xb1[1], xb1[2], xb1[3])
            cuda.syncthreads()  # the next tile is complete
            pa0 += u64(16)
            pa1 += u64(16)
            pb0 += u64(16) * u64(N)
            pb1 += u64(16) * u64(N)
        # the last tile: nothing left to fetch
        rA = tr
        rB = tc
        # the k-tile written out; step k+1's fragments are loaded before step k's multiply-adds
        fa0_0 = lds4(sA, rA + u32(0))
        fb0_0 = lds4(sB, rB + u32(0))
        fb0_1 = lds4(sB, rB + u32(16))
        fa1_0 = lds4(sA, rA + u32(64) + u32(0))
        fb1_0 = lds4(sB, rB + u32(64) + u32(0))
        fb1_1 = lds4(sB, rB + u32(64) + u32(16))
        outer(acc, (fa0_0,), (fb0_0, fb0_1,))
        fa2_0 = lds4(sA, rA + u32(128) + u32(0))
        fb2_0 = lds4(sB, rB + u32(128) + u32(0))
        fb2_1 = lds4(sB, rB + u32(128) + u32(16))
        outer(acc, (fa1_0,), (fb1_0, fb1_1,))
        fa3_0 = lds4(sA, rA + u32(192) + u32(0))
        fb3_0 = lds4(sB, rB + u32(192) + u32(0))
        fb3_1 = lds4(sB, rB + u32(192) + u32(16))
        outer(acc, (fa2_0,), (fb2_0, fb2_1,))
        fa4_0 = lds4(sA, rA + u32(256) + u32(0))
        fb4_0 = lds4(sB, rB + u32(256) + u32(0))
        fb4_1 = lds4(sB, rB + u32(256) + u32(16))
        outer(acc, (fa3_0,), (fb3_0, fb3_1,))
        fa5_0 = lds4(sA, rA + u32(320) + u32(0))
        fb5_0 = lds4(sB, rB + u32(320) + u32(0))
        fb5_1 = lds4(sB, rB + u32(320) + u32(16))
        outer(acc, (fa4_0,), (fb4_0, fb4_1,))
        fa6_0 = lds4(sA, rA + u32(384) + u32(0))
        fb6_0 = lds4(sB, rB + u32(384) + u32(0))
        fb6_1 = lds4(sB, rB + u32(384) + u32(16))
        outer(acc, (fa5_0,), (fb5_0, fb5_1,))
        fa7_0 = lds4(sA, rA + u32(448) + u32(0))
        fb7_0 = lds4(sB, rB + u32(448) + u32(0))
        fb7_1 = lds4(sB, rB + u32(448) + u32(16))
        outer(acc, (fa6_0,), (fb6_0, fb6_1,))
        fa8_0 = lds4(sA, rA + u32(512) + u32(0))
        fb8_0 = lds4(sB, rB + u32(512) + u32(0))
        fb8_1 = lds4(sB, rB + u32(512) + u32(16))
        outer(acc, (fa7_0,), (fb7_0, fb7_1,))
        fa9_0 = lds4(sA, rA + u32(576) + u32(0))
        fb9_0 = lds4(sB, rB + u32(576) + u32(0))
        fb9_1 = lds4(sB, rB + u32(576) + u32(16))
        outer(acc, (fa8_0,), (fb8_0, fb8_1,))
        fa10_0 = lds4(sA, rA + u32(640) + u32(0))
        fb10_0 = lds4(sB, rB + u32(640) + u32(0))
        fb10_1 = lds4(sB, rB + u32(640) + u32(16))
        outer(acc, (fa9_0,), (fb9_0, fb9_1,))
        fa11_0 = lds4(sA, rA + u32(704) + u32(0))
        fb11_0 = lds4(sB, rB + u32(704) + u32(0))
        fb11_1 = lds4(sB, rB + u32(704) + u32(16))
        outer(acc, (fa10_0,), (fb10_0, fb10_1,))
        fa12_0 = lds4(sA, rA + u32(768) + u32(0))
        fb12_0 = lds4(sB, rB + u32(768) + u32(0))
        fb12_1 = lds4(sB, rB + u32(768) + u32(16))
        outer(acc, (fa11_0,), (fb11_0, fb11_1,))
        fa13_0 = lds4(sA, rA + u32(832) + u32(0))
        fb13_0 = lds4(sB, rB + u32(832) + u32(0))
        fb13_1 = lds4(sB, rB + u32(832) + u32(16))
        outer(acc, (fa12_0,), (fb12_0, fb12_1,))
        fa14_0 = lds4(sA, rA + u32(896) + u32(0))
        fb14_0 = lds4(sB, rB + u32(896) + u32(0))
        fb14_1 = lds4(sB, rB + u32(896) + u32(16))
        outer(acc, (fa13_0,), (fb13_0, fb13_1,))
        fa15_0 = lds4(sA, rA + u32(960) + u32(0))
        fb15_0 = lds4(sB, rB + u32(960) + u32(0))
        fb15_1 = lds4(sB, rB + u32(960) + u32(16))
        outer(acc, (fa14_0,), (fb14_0, fb14_1,))
        outer(acc, (fa15_0,), (fb15_0, fb15_1,))
    # write the RM×RN results, guarded at the edges
    cc0 = u32(bn0 + tc + u32(0))
    nc0 = min(N - cc0, u32(4))
    cc1 = u32(bn0 + tc + u32(16))
    nc1 = min(N - cc1, u32(4))
    row = u32(bm0 + tr + u32(0))
    ro = zc + u64(row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[0], acc[1], acc[2], acc[3])
    stg4x(rok & (cc1 < N), vec, c, ro + u64(cc1), nc1, acc[4], acc[5], acc[6], acc[7])
    row = u32(bm0 + tr + u32(1))
    ro = zc + u64(row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[8], acc[9], acc[10], acc[11])
    stg4x(rok & (cc1 < N), vec, c, ro + u64(cc1), nc1, acc[12], acc[13], acc[14], acc[15])
    row = u32(bm0 + tr + u32(2))
    ro = zc + u64(row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[16], acc[17], acc[18], acc[19])
    stg4x(rok & (cc1 < N), vec, c, ro + u64(cc1), nc1, acc[20], acc[21], acc[22], acc[23])
    row = u32(bm0 + tr + u32(3))
    ro = zc + u64(row) * u64(N)
    rok = row < M
    stg4x(rok & (cc0 < N), vec, c, ro + u64(cc0), nc0, acc[24], acc[25], acc[26], acc[27])
    stg4x(rok & (cc1 < N), vec, c, ro + u64(cc1), nc1, acc[28], acc[29], acc[30], acc[31])
