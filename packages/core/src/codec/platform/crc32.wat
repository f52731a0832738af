;; CRC-32 (zlib's: reflected polynomial 0xEDB88320) in WebAssembly, for the portable build
;; (wasm-crc32.ts embeds the module this assembles to; a test checks the two agree). Slice-by-8,
;; with the tables and loop crc32.ts uses for short ranges. Memory: page 0 holds the eight tables
;; of 256 entries (T_k at byte 1024·k, built by $init when the module is instantiated), page 1 the
;; bytes to check.
(module
  (memory (export "memory") 2 2)
  (start $init)

  (func $init
    (local $n i32) (local $c i32) (local $k i32)
    ;; T_0[n]: n through eight shift-and-reduce steps.
    (loop $entries
      (local.set $c (local.get $n))
      (local.set $k (i32.const 8))
      (loop $bits
        (local.set $c
          (select
            (i32.xor (i32.shr_u (local.get $c) (i32.const 1)) (i32.const 0xedb88320))
            (i32.shr_u (local.get $c) (i32.const 1))
            (i32.and (local.get $c) (i32.const 1))))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br_if $bits (local.get $k)))
      (i32.store (i32.shl (local.get $n) (i32.const 2)) (local.get $c))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $entries (i32.lt_u (local.get $n) (i32.const 256))))
    ;; T_k[n] = T_0[T_(k-1)[n] & 255] ^ (T_(k-1)[n] >>> 8), for the bytes from 1024 to 8191.
    (local.set $n (i32.const 1024))
    (loop $more
      (local.set $c (i32.load (i32.sub (local.get $n) (i32.const 1024))))
      (i32.store (local.get $n)
        (i32.xor
          (i32.load (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2)))
          (i32.shr_u (local.get $c) (i32.const 8))))
      (local.set $n (i32.add (local.get $n) (i32.const 4)))
      (br_if $more (i32.lt_u (local.get $n) (i32.const 8192)))))

  ;; The CRC of memory[at .. at + n), continuing from crc (as zlib's crc32(crc, bytes)).
  (func (export "crc") (param $at i32) (param $n i32) (param $crc i32) (result i32)
    (local $c i32) (local $a i32) (local $b i32) (local $end i32) (local $end8 i32)
    (local.set $c (i32.xor (local.get $crc) (i32.const -1)))
    (local.set $end (i32.add (local.get $at) (local.get $n)))
    (local.set $end8 (i32.add (local.get $at) (i32.and (local.get $n) (i32.const -8))))
    ;; Eight bytes a step: the first four XORed into the CRC, each byte through its own table.
    (block $done8
      (loop $step8
        (br_if $done8 (i32.ge_u (local.get $at) (local.get $end8)))
        (local.set $a (i32.xor (local.get $c) (i32.load (local.get $at))))
        (local.set $b (i32.load offset=4 (local.get $at)))
        (local.set $c
          (i32.xor
            (i32.xor
              (i32.xor
                (i32.load offset=7168 (i32.shl (i32.and (local.get $a) (i32.const 255)) (i32.const 2)))
                (i32.load offset=6144 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.xor
                (i32.load offset=5120 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 16)) (i32.const 255)) (i32.const 2)))
                (i32.load offset=4096 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2)))))
            (i32.xor
              (i32.xor
                (i32.load offset=3072 (i32.shl (i32.and (local.get $b) (i32.const 255)) (i32.const 2)))
                (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.xor
                (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 16)) (i32.const 255)) (i32.const 2)))
                (i32.load (i32.shl (i32.shr_u (local.get $b) (i32.const 24)) (i32.const 2)))))))
        (local.set $at (i32.add (local.get $at) (i32.const 8)))
        (br $step8)))
    ;; The last bytes one at a time.
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $c
          (i32.xor
            (i32.load (i32.shl (i32.and (i32.xor (local.get $c) (i32.load8_u (local.get $at))) (i32.const 255)) (i32.const 2)))
            (i32.shr_u (local.get $c) (i32.const 8))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $step)))
    (i32.xor (local.get $c) (i32.const -1))))
