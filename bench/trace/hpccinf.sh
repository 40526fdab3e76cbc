#!/usr/bin/env bash
# Prints an hpccinf.txt (HPC Challenge's input) for HPL's matrix order N on
# NP ranks (a P x Q grid as square as NP allows): Debian's example input
# (/usr/share/doc/hpcc/examples/_hpccinf.txt) with N and the grid changed.
#
#     bench/trace/hpccinf.sh N [NP] > hpccinf.txt
set -euo pipefail
[[ $# -ge 1 && $1 =~ ^[1-9][0-9]*$ && ${2:-4} =~ ^[1-9][0-9]*$ ]] || { echo "usage: hpccinf.sh N [NP]" >&2; exit 2; }
n=$1 np=${2:-4} p=1
for ((i = 1; i * i <= np; ++i)); do ((np % i == 0)) && p=$i; done
cat <<END
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n           Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$p           Ps
$((np / p))           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
END
