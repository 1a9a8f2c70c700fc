

# {"format": 1, "ns2": "2.35", "seed": 1, "duration_s": 20.0, "warmup_s": 0.0}
set ns [new Simulator]
$defaultRNG seed 1
set n(0) [$ns node]  ;# S1
set n(1) [$ns node]  ;# S2
set n(2) [$ns node]  ;# S3
set n(3) [$ns node]  ;# S4
set n(4) [$ns node]  ;# S5
set n(5) [$ns node]  ;# S6
set n(6) [$ns node]  ;# S7
set n(7) [$ns node]  ;# S8
set n(8) [$ns node]  ;# S9
set n(9) [$ns node]  ;# S10
set n(10) [$ns node]  ;# S11
set n(11) [$ns node]  ;# S12
set n(12) [$ns node]  ;# S13
set n(13) [$ns node]  ;# S14
set n(14) [$ns node]  ;# S15
set n(15) [$ns node]  ;# S16
set n(16) [$ns node]  ;# S17
set n(17) [$ns node]  ;# S18
set n(18) [$ns node]  ;# S19
set n(19) [$ns node]  ;# S20
set n(20) [$ns node]  ;# S21
set n(21) [$ns node]  ;# S22
set n(22) [$ns node]  ;# S23
set n(23) [$ns node]  ;# S24
set n(24) [$ns node]  ;# S25
set n(25) [$ns node]  ;# S26
set n(26) [$ns node]  ;# S27
set n(27) [$ns node]  ;# S28
set n(28) [$ns node]  ;# S29
set n(29) [$ns node]  ;# S30
set n(30) [$ns node]  ;# S31
set n(31) [$ns node]  ;# S32
set n(32) [$ns node]  ;# S33
set n(33) [$ns node]  ;# S34
set n(34) [$ns node]  ;# S35
set n(35) [$ns node]  ;# S36
set n(36) [$ns node]  ;# S37
set n(37) [$ns node]  ;# S38
set n(38) [$ns node]  ;# S39
set n(39) [$ns node]  ;# S40
set n(40) [$ns node]  ;# S41
set n(41) [$ns node]  ;# S42
set n(42) [$ns node]  ;# S43
set n(43) [$ns node]  ;# S44
set n(44) [$ns node]  ;# S45
set n(45) [$ns node]  ;# S46
set n(46) [$ns node]  ;# S47
set n(47) [$ns node]  ;# S48
set n(48) [$ns node]  ;# S49
set n(49) [$ns node]  ;# S50
set n(50) [$ns node]  ;# A
set n(51) [$ns node]  ;# B
set n(52) [$ns node]  ;# R1
set n(53) [$ns node]  ;# R2
set n(54) [$ns node]  ;# R3
set n(55) [$ns node]  ;# R4
set n(56) [$ns node]  ;# R5
set n(57) [$ns node]  ;# R6
set n(58) [$ns node]  ;# R7
set n(59) [$ns node]  ;# R8
set n(60) [$ns node]  ;# R9
set n(61) [$ns node]  ;# R10
set n(62) [$ns node]  ;# R11
set n(63) [$ns node]  ;# R12
set n(64) [$ns node]  ;# R13
set n(65) [$ns node]  ;# R14
set n(66) [$ns node]  ;# R15
set n(67) [$ns node]  ;# R16
set n(68) [$ns node]  ;# R17
set n(69) [$ns node]  ;# R18
set n(70) [$ns node]  ;# R19
set n(71) [$ns node]  ;# R20
set n(72) [$ns node]  ;# R21
set n(73) [$ns node]  ;# R22
set n(74) [$ns node]  ;# R23
set n(75) [$ns node]  ;# R24
set n(76) [$ns node]  ;# R25
set n(77) [$ns node]  ;# R26
set n(78) [$ns node]  ;# R27
set n(79) [$ns node]  ;# R28
set n(80) [$ns node]  ;# R29
set n(81) [$ns node]  ;# R30
set n(82) [$ns node]  ;# R31
set n(83) [$ns node]  ;# R32
set n(84) [$ns node]  ;# R33
set n(85) [$ns node]  ;# R34
set n(86) [$ns node]  ;# R35
set n(87) [$ns node]  ;# R36
set n(88) [$ns node]  ;# R37
set n(89) [$ns node]  ;# R38
set n(90) [$ns node]  ;# R39
set n(91) [$ns node]  ;# R40
set n(92) [$ns node]  ;# R41
set n(93) [$ns node]  ;# R42
set n(94) [$ns node]  ;# R43
set n(95) [$ns node]  ;# R44
set n(96) [$ns node]  ;# R45
set n(97) [$ns node]  ;# R46
set n(98) [$ns node]  ;# R47
set n(99) [$ns node]  ;# R48
set n(100) [$ns node]  ;# R49
set n(101) [$ns node]  ;# R50
$ns simplex-link $n(0) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(0) $n(50) 51
$ns simplex-link $n(50) $n(0) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(0) 51
$ns simplex-link $n(1) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(1) $n(50) 51
$ns simplex-link $n(50) $n(1) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(1) 51
$ns simplex-link $n(2) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(2) $n(50) 51
$ns simplex-link $n(50) $n(2) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(2) 51
$ns simplex-link $n(3) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(3) $n(50) 51
$ns simplex-link $n(50) $n(3) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(3) 51
$ns simplex-link $n(4) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(4) $n(50) 51
$ns simplex-link $n(50) $n(4) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(4) 51
$ns simplex-link $n(5) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(5) $n(50) 51
$ns simplex-link $n(50) $n(5) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(5) 51
$ns simplex-link $n(6) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(6) $n(50) 51
$ns simplex-link $n(50) $n(6) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(6) 51
$ns simplex-link $n(7) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(7) $n(50) 51
$ns simplex-link $n(50) $n(7) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(7) 51
$ns simplex-link $n(8) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(8) $n(50) 51
$ns simplex-link $n(50) $n(8) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(8) 51
$ns simplex-link $n(9) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(9) $n(50) 51
$ns simplex-link $n(50) $n(9) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(9) 51
$ns simplex-link $n(10) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(10) $n(50) 51
$ns simplex-link $n(50) $n(10) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(10) 51
$ns simplex-link $n(11) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(11) $n(50) 51
$ns simplex-link $n(50) $n(11) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(11) 51
$ns simplex-link $n(12) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(12) $n(50) 51
$ns simplex-link $n(50) $n(12) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(12) 51
$ns simplex-link $n(13) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(13) $n(50) 51
$ns simplex-link $n(50) $n(13) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(13) 51
$ns simplex-link $n(14) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(14) $n(50) 51
$ns simplex-link $n(50) $n(14) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(14) 51
$ns simplex-link $n(15) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(15) $n(50) 51
$ns simplex-link $n(50) $n(15) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(15) 51
$ns simplex-link $n(16) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(16) $n(50) 51
$ns simplex-link $n(50) $n(16) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(16) 51
$ns simplex-link $n(17) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(17) $n(50) 51
$ns simplex-link $n(50) $n(17) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(17) 51
$ns simplex-link $n(18) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(18) $n(50) 51
$ns simplex-link $n(50) $n(18) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(18) 51
$ns simplex-link $n(19) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(19) $n(50) 51
$ns simplex-link $n(50) $n(19) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(19) 51
$ns simplex-link $n(20) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(20) $n(50) 51
$ns simplex-link $n(50) $n(20) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(20) 51
$ns simplex-link $n(21) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(21) $n(50) 51
$ns simplex-link $n(50) $n(21) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(21) 51
$ns simplex-link $n(22) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(22) $n(50) 51
$ns simplex-link $n(50) $n(22) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(22) 51
$ns simplex-link $n(23) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(23) $n(50) 51
$ns simplex-link $n(50) $n(23) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(23) 51
$ns simplex-link $n(24) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(24) $n(50) 51
$ns simplex-link $n(50) $n(24) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(24) 51
$ns simplex-link $n(25) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(25) $n(50) 51
$ns simplex-link $n(50) $n(25) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(25) 51
$ns simplex-link $n(26) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(26) $n(50) 51
$ns simplex-link $n(50) $n(26) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(26) 51
$ns simplex-link $n(27) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(27) $n(50) 51
$ns simplex-link $n(50) $n(27) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(27) 51
$ns simplex-link $n(28) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(28) $n(50) 51
$ns simplex-link $n(50) $n(28) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(28) 51
$ns simplex-link $n(29) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(29) $n(50) 51
$ns simplex-link $n(50) $n(29) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(29) 51
$ns simplex-link $n(30) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(30) $n(50) 51
$ns simplex-link $n(50) $n(30) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(30) 51
$ns simplex-link $n(31) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(31) $n(50) 51
$ns simplex-link $n(50) $n(31) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(31) 51
$ns simplex-link $n(32) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(32) $n(50) 51
$ns simplex-link $n(50) $n(32) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(32) 51
$ns simplex-link $n(33) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(33) $n(50) 51
$ns simplex-link $n(50) $n(33) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(33) 51
$ns simplex-link $n(34) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(34) $n(50) 51
$ns simplex-link $n(50) $n(34) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(34) 51
$ns simplex-link $n(35) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(35) $n(50) 51
$ns simplex-link $n(50) $n(35) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(35) 51
$ns simplex-link $n(36) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(36) $n(50) 51
$ns simplex-link $n(50) $n(36) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(36) 51
$ns simplex-link $n(37) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(37) $n(50) 51
$ns simplex-link $n(50) $n(37) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(37) 51
$ns simplex-link $n(38) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(38) $n(50) 51
$ns simplex-link $n(50) $n(38) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(38) 51
$ns simplex-link $n(39) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(39) $n(50) 51
$ns simplex-link $n(50) $n(39) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(39) 51
$ns simplex-link $n(40) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(40) $n(50) 51
$ns simplex-link $n(50) $n(40) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(40) 51
$ns simplex-link $n(41) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(41) $n(50) 51
$ns simplex-link $n(50) $n(41) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(41) 51
$ns simplex-link $n(42) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(42) $n(50) 51
$ns simplex-link $n(50) $n(42) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(42) 51
$ns simplex-link $n(43) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(43) $n(50) 51
$ns simplex-link $n(50) $n(43) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(43) 51
$ns simplex-link $n(44) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(44) $n(50) 51
$ns simplex-link $n(50) $n(44) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(44) 51
$ns simplex-link $n(45) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(45) $n(50) 51
$ns simplex-link $n(50) $n(45) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(45) 51
$ns simplex-link $n(46) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(46) $n(50) 51
$ns simplex-link $n(50) $n(46) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(46) 51
$ns simplex-link $n(47) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(47) $n(50) 51
$ns simplex-link $n(50) $n(47) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(47) 51
$ns simplex-link $n(48) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(48) $n(50) 51
$ns simplex-link $n(50) $n(48) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(48) 51
$ns simplex-link $n(49) $n(50) 10000000b 0.015s DropTail
$ns queue-limit $n(49) $n(50) 51
$ns simplex-link $n(50) $n(49) 10000000b 0.015s DropTail
$ns queue-limit $n(50) $n(49) 51
$ns simplex-link $n(50) $n(51) 10000000b 0.005s RED
$ns queue-limit $n(50) $n(51) 50
[[$ns link $n(50) $n(51)] queue] set bytes_ false
[[$ns link $n(50) $n(51)] queue] set gentle_ true
[[$ns link $n(50) $n(51)] queue] set linterm_ 10.0
[[$ns link $n(50) $n(51)] queue] set maxthresh_ 15.0
[[$ns link $n(50) $n(51)] queue] set mean_pktsize_ 1500
[[$ns link $n(50) $n(51)] queue] set q_weight_ 0.002
[[$ns link $n(50) $n(51)] queue] set queue_in_bytes_ false
[[$ns link $n(50) $n(51)] queue] set setbit_ false
[[$ns link $n(50) $n(51)] queue] set thresh_ 5.0
[[$ns link $n(50) $n(51)] queue] set wait_ true
$ns simplex-link $n(51) $n(50) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(50) 51
$ns simplex-link $n(51) $n(52) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(52) 51
$ns simplex-link $n(52) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(52) $n(51) 51
$ns simplex-link $n(51) $n(53) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(53) 51
$ns simplex-link $n(53) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(53) $n(51) 51
$ns simplex-link $n(51) $n(54) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(54) 51
$ns simplex-link $n(54) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(54) $n(51) 51
$ns simplex-link $n(51) $n(55) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(55) 51
$ns simplex-link $n(55) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(55) $n(51) 51
$ns simplex-link $n(51) $n(56) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(56) 51
$ns simplex-link $n(56) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(56) $n(51) 51
$ns simplex-link $n(51) $n(57) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(57) 51
$ns simplex-link $n(57) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(57) $n(51) 51
$ns simplex-link $n(51) $n(58) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(58) 51
$ns simplex-link $n(58) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(58) $n(51) 51
$ns simplex-link $n(51) $n(59) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(59) 51
$ns simplex-link $n(59) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(59) $n(51) 51
$ns simplex-link $n(51) $n(60) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(60) 51
$ns simplex-link $n(60) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(60) $n(51) 51
$ns simplex-link $n(51) $n(61) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(61) 51
$ns simplex-link $n(61) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(61) $n(51) 51
$ns simplex-link $n(51) $n(62) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(62) 51
$ns simplex-link $n(62) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(62) $n(51) 51
$ns simplex-link $n(51) $n(63) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(63) 51
$ns simplex-link $n(63) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(63) $n(51) 51
$ns simplex-link $n(51) $n(64) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(64) 51
$ns simplex-link $n(64) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(64) $n(51) 51
$ns simplex-link $n(51) $n(65) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(65) 51
$ns simplex-link $n(65) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(65) $n(51) 51
$ns simplex-link $n(51) $n(66) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(66) 51
$ns simplex-link $n(66) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(66) $n(51) 51
$ns simplex-link $n(51) $n(67) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(67) 51
$ns simplex-link $n(67) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(67) $n(51) 51
$ns simplex-link $n(51) $n(68) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(68) 51
$ns simplex-link $n(68) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(68) $n(51) 51
$ns simplex-link $n(51) $n(69) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(69) 51
$ns simplex-link $n(69) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(69) $n(51) 51
$ns simplex-link $n(51) $n(70) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(70) 51
$ns simplex-link $n(70) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(70) $n(51) 51
$ns simplex-link $n(51) $n(71) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(71) 51
$ns simplex-link $n(71) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(71) $n(51) 51
$ns simplex-link $n(51) $n(72) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(72) 51
$ns simplex-link $n(72) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(72) $n(51) 51
$ns simplex-link $n(51) $n(73) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(73) 51
$ns simplex-link $n(73) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(73) $n(51) 51
$ns simplex-link $n(51) $n(74) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(74) 51
$ns simplex-link $n(74) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(74) $n(51) 51
$ns simplex-link $n(51) $n(75) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(75) 51
$ns simplex-link $n(75) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(75) $n(51) 51
$ns simplex-link $n(51) $n(76) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(76) 51
$ns simplex-link $n(76) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(76) $n(51) 51
$ns simplex-link $n(51) $n(77) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(77) 51
$ns simplex-link $n(77) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(77) $n(51) 51
$ns simplex-link $n(51) $n(78) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(78) 51
$ns simplex-link $n(78) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(78) $n(51) 51
$ns simplex-link $n(51) $n(79) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(79) 51
$ns simplex-link $n(79) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(79) $n(51) 51
$ns simplex-link $n(51) $n(80) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(80) 51
$ns simplex-link $n(80) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(80) $n(51) 51
$ns simplex-link $n(51) $n(81) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(81) 51
$ns simplex-link $n(81) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(81) $n(51) 51
$ns simplex-link $n(51) $n(82) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(82) 51
$ns simplex-link $n(82) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(82) $n(51) 51
$ns simplex-link $n(51) $n(83) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(83) 51
$ns simplex-link $n(83) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(83) $n(51) 51
$ns simplex-link $n(51) $n(84) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(84) 51
$ns simplex-link $n(84) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(84) $n(51) 51
$ns simplex-link $n(51) $n(85) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(85) 51
$ns simplex-link $n(85) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(85) $n(51) 51
$ns simplex-link $n(51) $n(86) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(86) 51
$ns simplex-link $n(86) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(86) $n(51) 51
$ns simplex-link $n(51) $n(87) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(87) 51
$ns simplex-link $n(87) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(87) $n(51) 51
$ns simplex-link $n(51) $n(88) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(88) 51
$ns simplex-link $n(88) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(88) $n(51) 51
$ns simplex-link $n(51) $n(89) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(89) 51
$ns simplex-link $n(89) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(89) $n(51) 51
$ns simplex-link $n(51) $n(90) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(90) 51
$ns simplex-link $n(90) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(90) $n(51) 51
$ns simplex-link $n(51) $n(91) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(91) 51
$ns simplex-link $n(91) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(91) $n(51) 51
$ns simplex-link $n(51) $n(92) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(92) 51
$ns simplex-link $n(92) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(92) $n(51) 51
$ns simplex-link $n(51) $n(93) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(93) 51
$ns simplex-link $n(93) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(93) $n(51) 51
$ns simplex-link $n(51) $n(94) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(94) 51
$ns simplex-link $n(94) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(94) $n(51) 51
$ns simplex-link $n(51) $n(95) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(95) 51
$ns simplex-link $n(95) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(95) $n(51) 51
$ns simplex-link $n(51) $n(96) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(96) 51
$ns simplex-link $n(96) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(96) $n(51) 51
$ns simplex-link $n(51) $n(97) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(97) 51
$ns simplex-link $n(97) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(97) $n(51) 51
$ns simplex-link $n(51) $n(98) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(98) 51
$ns simplex-link $n(98) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(98) $n(51) 51
$ns simplex-link $n(51) $n(99) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(99) 51
$ns simplex-link $n(99) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(99) $n(51) 51
$ns simplex-link $n(51) $n(100) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(100) 51
$ns simplex-link $n(100) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(100) $n(51) 51
$ns simplex-link $n(51) $n(101) 10000000b 0.005s DropTail
$ns queue-limit $n(51) $n(101) 51
$ns simplex-link $n(101) $n(51) 10000000b 0.005s DropTail
$ns queue-limit $n(101) $n(51) 51
xl_monitor {A->B} $n(50) $n(51) 1
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 0 {S1-R1.0} $tcp $sink $n(0) $n(52) 0.595884629 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 1 {S2-R2.0} $tcp $sink $n(1) $n(53) 0.13212771 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 2 {S3-R3.0} $tcp $sink $n(2) $n(54) 0.776958395 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 3 {S4-R4.0} $tcp $sink $n(3) $n(55) 0.690534451 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 4 {S5-R5.0} $tcp $sink $n(4) $n(56) 0.93735102 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 5 {S6-R6.0} $tcp $sink $n(5) $n(57) 0.702713429 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 6 {S7-R7.0} $tcp $sink $n(6) $n(58) 0.670541986 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 7 {S8-R8.0} $tcp $sink $n(7) $n(59) 0.290944983 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 8 {S9-R9.0} $tcp $sink $n(8) $n(60) 0.329910927 0 1000 0.025096 {}
set tcp [new Agent/TCP/Vegas]
$tcp set ecn_ 0
$tcp set maxrto_ 60.0
$tcp set minrto_ 0.2
$tcp set packetSize_ 1040
$tcp set rtxcur_init_ 3.0
$tcp set syn_ false
$tcp set tcpTick_ 0.01
$tcp set tcpip_base_hdr_size_ 40
$tcp set timestamps_ false
$tcp set v_alpha_ 1
$tcp set v_beta_ 3
$tcp set v_gamma_ 1
$tcp set windowInit_ 1
$tcp set window_ 20
set sink [new Agent/TCPSink]
$sink set packetSize_ 40
xl_flow 9 {S10-R10.0} $tcp $sink $n(9) $n(61) 0.331712448 0 1000 0.025096 {}
xl_run 0.0 20.0 0.1
