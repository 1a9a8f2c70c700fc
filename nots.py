import sys, numpy as np
sys.path.insert(0,'/work/wt-vegas/validation')
import cwnd_ns3 as C, crosslayer
sc=C.scenario("vegas","ns3"); sc["tcp"]["timestamps"]=False
r=crosslayer.run(sc); t=r.cwnd.t_s.to_numpy(float); c=r.cwnd.cwnd_bytes.to_numpy(float)/1448
ch=np.nonzero(np.diff(c))[0]
print("no timestamps: mean 10-30 %.1f final %.0f last change %.3f goodput %.2f base %s srtt10-30 mean %.6f min %.6f"%(c[t>=10].mean(), c[-1], t[ch[-1]+1], r.flows.iloc[0].goodput_bps/1e6, r.cwnd.vegas_base_rtt_s.iloc[-1], r.cwnd.srtt_s[t>=10].mean(), r.cwnd.srtt_s[t>=10].min()))
