# The ns-2 side of `crosslayer crosscheck --with ns2`: the procedures every generated script
# starts with (crosslayer.crosscheck.ns2 writes the scenario after them). Run as
#
#     ns script.tcl result.json
#
# It writes one JSON object (the measurements) to result.json (stdout without an argument);
# progress lines `progress <simulated s> <end s>` go to stderr.
#
# What it measures (window [warmup, duration])
# * per flow: goodput (the cumulative ACK's advance in the window, in segments of the flow's mss:
#   in-order payload delivered), retransmitted segments (nrexmitpack_), retransmission timeouts
#   (nrexmit_: ns-2's own agents count their timeouts there; Agent/TCP/Linux does not, so its
#   count is reported as unknown), and a finite flow's completion time (its `done` callback,
#   less the ACK path's delay: crosslayer ends the FCT when the last byte arrives);
# * every bottleneck: the packets waiting (a queue monitor around the link's queue: the packet on
#   the wire is not in it, as in crosslayer): the exact time-weighted mean (its integrator), the
#   SD from the count sampled every 10 ms (a Tcl event each: every millisecond made a 200-s run
#   of seed 002 take 4.3 s instead of 1.0), arrivals and drops; the queue crosslayer samples
#   (`series`) every sample interval;
# * UDP: datagrams received (a LossMonitor) and sent (the CBR's rate over its active time).

set xl(flows) {}
set xl(monitors) {}
set xl(udp) {}
set xl(series_t) {}
set xl(series_q) {}

proc xl_loss {a b p} {
    global ns
    set em [new ErrorModel]
    $em set rate_ $p
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $ns lossmodel $em $a $b
    # after lossmodel (which points it at the link's drop trace, counted by a queue monitor as
    # the queue's drops): crosslayer counts random loss apart from the queue's drops
    $em drop-target [new Agent/Null]
}

proc xl_monitor {name a b series} {
    global ns xl
    set qm [$ns monitor-queue $a $b ""]
    set xl(qm,$name) $qm
    set xl(series,$name) $series
    set xl(n,$name) 0
    set xl(s1,$name) 0.0
    set xl(s2,$name) 0.0
    lappend xl(monitors) $name
}

Agent/TCP instproc done {} {
    global ns xl
    set k [$self set fid_]
    if {![info exists xl(done,$k)]} { set xl(done,$k) [$ns now] }
}

proc xl_flow {k name tcp sink src dst start segments mss ack_delay ca} {
    global ns xl
    $tcp set fid_ $k
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    if {$ca ne ""} { $ns at 0.0 "$tcp select_ca $ca" }
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    if {$segments > 0} {
        $ns at $start "$tcp advanceby $segments"
    } else {
        $ns at $start "$ftp start"
    }
    set xl(tcp,$k) $tcp
    set xl(name,$k) $name
    set xl(start,$k) $start
    set xl(segments,$k) $segments
    set xl(mss,$k) $mss
    set xl(ackdelay,$k) $ack_delay
    set xl(linux,$k) [expr {$ca ne ""}]
    lappend xl(flows) $k
}

proc xl_udp {k name src dst start stop size rate} {
    global ns xl
    set udp [new Agent/UDP]
    $udp set packetSize_ [expr {$size + 100}]
    $ns attach-agent $src $udp
    set mon [new Agent/LossMonitor]
    $ns attach-agent $dst $mon
    $ns connect $udp $mon
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $size
    $cbr set rate_ $rate
    $cbr set random_ 0
    $cbr attach-agent $udp
    $ns at $start "$cbr start"
    if {$stop ne ""} { $ns at $stop "$cbr stop" }
    set xl(udpmon,$k) $mon
    set xl(udpname,$k) $name
    set xl(udpstart,$k) $start
    set xl(udpstop,$k) $stop
    set xl(udpsize,$k) $size
    set xl(udprate,$k) $rate
    lappend xl(udp) $k
}

# the in-order data segments delivered so far: with a SYN (syn_) sequence 0 is the SYN
proc xl_delivered {k} {
    global xl
    set tcp $xl(tcp,$k)
    set ack [$tcp set ack_]
    if {[$tcp set syn_]} { return [expr {$ack > 0 ? $ack : 0}] }
    return [expr {$ack + 1}]
}

proc xl_mark {} {
    global ns xl
    foreach k $xl(flows) {
        set xl(d0,$k) [xl_delivered $k]
        set xl(r0,$k) [$xl(tcp,$k) set nrexmitpack_]
        set xl(t0,$k) [$xl(tcp,$k) set nrexmit_]
    }
    foreach name $xl(monitors) {
        set qm $xl(qm,$name)
        set integ [$qm get-pkts-integrator]
        $integ newpoint [$ns now] [$qm set pkts_]
        set xl(i0,$name) [$integ set sum_]
        set xl(a0,$name) [$qm set parrivals_]
        set xl(x0,$name) [$qm set pdrops_]
    }
    foreach k $xl(udp) { set xl(u0,$k) [$xl(udpmon,$k) set npkts_] }
}

proc xl_sample {every end} {
    global ns xl
    set now [$ns now]
    foreach name $xl(monitors) {
        set q [$xl(qm,$name) set pkts_]
        incr xl(n,$name)
        set xl(s1,$name) [expr {$xl(s1,$name) + $q}]
        set xl(s2,$name) [expr {$xl(s2,$name) + double($q) * $q}]
    }
    set next [expr {$now + $every}]
    if {$next < $end} { $ns at $next "xl_sample $every $end" }
}

proc xl_series {every end} {
    global ns xl
    foreach name $xl(monitors) {
        if {$xl(series,$name)} {
            lappend xl(series_t) [$ns now]
            lappend xl(series_q) [$xl(qm,$name) set pkts_]
        }
    }
    set next [expr {[$ns now] + $every}]
    if {$next <= $end + 1e-9} { $ns at $next "xl_series $every $end" }
}

proc xl_progress {every end} {
    global ns
    puts stderr "progress [$ns now] $end"
    flush stderr
    set next [expr {[$ns now] + $every}]
    if {$next < $end} { $ns at $next "xl_progress $every $end" }
}

proc xl_num {x} {
    if {$x eq ""} { return null }
    return [format %.17g $x]
}

proc xl_finish {warmup end} {
    global ns xl argv
    set window [expr {$end - $warmup}]
    set flows {}
    foreach k $xl(flows) {
        set tcp $xl(tcp,$k)
        set bytes [expr {([xl_delivered $k] - $xl(d0,$k)) * double($xl(mss,$k))}]
        set fct null
        if {[info exists xl(done,$k)]} { set fct [xl_num [expr {$xl(done,$k) - $xl(start,$k) - $xl(ackdelay,$k)}]] }
        set timeouts [expr {$xl(linux,$k) ? "null" : [$tcp set nrexmit_] - $xl(t0,$k)}]
        lappend flows "{\"name\": \"$xl(name,$k)\", \"goodput_bps\": [xl_num [expr {$bytes * 8 / $window}]], \"retransmits\": [expr {[$tcp set nrexmitpack_] - $xl(r0,$k)}], \"timeouts\": $timeouts, \"fct_s\": $fct}"
    }
    set queues {}
    foreach name $xl(monitors) {
        set qm $xl(qm,$name)
        set integ [$qm get-pkts-integrator]
        $integ newpoint [$ns now] [$qm set pkts_]
        set mean [expr {([$integ set sum_] - $xl(i0,$name)) / $window}]
        set n $xl(n,$name)
        set sd null
        if {$n > 1} {
            set m [expr {$xl(s1,$name) / $n}]
            set sd [xl_num [expr {sqrt(max($xl(s2,$name) / $n - $m * $m, 0.0))}]]
        }
        set arrivals [expr {[$qm set parrivals_] - $xl(a0,$name)}]
        set drops [expr {[$qm set pdrops_] - $xl(x0,$name)}]
        set ratio [expr {$arrivals > 0 ? [xl_num [expr {double($drops) / $arrivals}]] : "null"}]
        lappend queues "\"$name\": {\"qlen_mean_pkts\": [xl_num $mean], \"qlen_sd_pkts\": $sd, \"drop_ratio\": $ratio, \"sojourn_p99_s\": null, \"arrivals\": $arrivals, \"drops\": $drops}"
    }
    set udp {}
    foreach k $xl(udp) {
        set from [expr {max($warmup, $xl(udpstart,$k))}]
        set to $end
        if {$xl(udpstop,$k) ne ""} { set to [expr {min($end, $xl(udpstop,$k))}] }
        set sent [expr {$to > $from ? ($to - $from) * $xl(udprate,$k) / (8.0 * $xl(udpsize,$k)) : 0}]
        set got [expr {[$xl(udpmon,$k) set npkts_] - $xl(u0,$k)}]
        lappend udp "{\"name\": \"$xl(udpname,$k)\", \"sent_pkts\": [xl_num $sent], \"received_pkts\": $got, \"packet_bytes\": $xl(udpsize,$k)}"
    }
    set st {}
    foreach t $xl(series_t) { lappend st [xl_num $t] }
    set wall [expr {([clock milliseconds] - $xl(wall0)) / 1000.0}]
    set json "{\"simulator\": \"ns-2\", \"window_s\": [xl_num $window], \"run_wall_s\": $wall, \"events\": 0, \"flows\": \[[join $flows {, }]\], \"queues\": {[join $queues {, }]}, \"udp\": \[[join $udp {, }]\], \"series\": {\"t_s\": \[[join $st {, }]\], \"qlen_pkts\": \[[join $xl(series_q) {, }]\]}}"
    if {[llength $argv] > 0} {
        set f [open [lindex $argv 0] w]
        puts $f $json
        close $f
    } else {
        puts $json
    }
    exit 0
}

proc xl_run {warmup end every} {
    global ns xl
    set xl(wall0) [clock milliseconds]
    if {$warmup > 0} { $ns at $warmup "xl_mark" } else { xl_mark }
    $ns at $warmup "xl_sample 0.01 $end"
    if {$every > 0} { $ns at 0.0 "xl_series $every $end" }
    $ns at 0.0 "xl_progress [expr {$end / 20.0}] $end"
    $ns at $end "xl_finish $warmup $end"
    $ns run
}
