#!/usr/bin/env bash
# End-to-end tests of `callsign emit` under overridden rules: an answer the rule leaves no room for
# (repeated IDs, or IDs that break it) is refused with one line and exit 2, never printed as if it
# could be sent; the same rule on a history it has room for is answered. Usage: emit_rules.sh path/to/callsign
set -u
CS=${1:-build/san/callsign}
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# Exit status $1 is 2, $T/e one line starting "callsign: " and holding $2, nothing on stdout ($T/o).
one_line_2() {
  [ "$1" -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q '^callsign: ' "$T/e" && grep -qF -- "$2" "$T/e" &&
    ! [ -s "$T/o" ]
}
# A history of $1 calls x0, x1, ... in one anthropic turn.
calls() {
  python3 -c "import json,sys;n=int(sys.argv[1]);json.dump({'turns':[{'role':'assistant','provider':'anthropic',
'turn_key':'t','calls':[{'id':'x%d'%i,'name':'f'} for i in range(n)]}]},sys.stdout)" "$1"
}

# anthropic.max_len=1 admits 64 IDs: 200 calls cannot all get one of their own.
calls 200 >"$T/h200.json"
"$CS" emit --target anthropic --rule anthropic.max_len=1 "$T/h200.json" >"$T/o" 2>"$T/e"
check "200 calls, 64 IDs possible: exit 2, one line" \
  "one_line_2 $? 'emit: the anthropic rule leaves no room for 200 distinct IDs: call 64 finds all 10000'"
# The same from a rule profile, and for the 65th of 65 calls: the first call without room is named.
echo "anthropic.max_len=1" >"$T/profile"
calls 65 >"$T/h65.json"
"$CS" emit --target anthropic --profile "$T/profile" "$T/h65.json" >"$T/o" 2>"$T/e"
check "65 calls: exit 2, call 64 named" "one_line_2 $? 'no room for 65 distinct IDs: call 64 '"
# A rule as tight is fine for a history it has room for.
calls 40 >"$T/h40.json"
"$CS" emit --target anthropic --rule anthropic.max_len=1 "$T/h40.json" >"$T/o" 2>"$T/e"
check "40 calls under max_len=1: exit 0, 40 distinct one-character IDs" "[ $? -eq 0 ] && ! [ -s '$T/e' ] && python3 -c \"
import json,re;d=json.load(open('$T/o'));c=d['calls']
assert len(c)==40 and len(set(c))==40 and all(re.fullmatch('[A-Za-z0-9_-]',x) for x in c), c\""

# A pattern the mappers do not aim at: the first ID that breaks it is named, with the reason.
"$CS" emit --target anthropic --rule 'anthropic.pattern=^x+$' "$T/h40.json" >"$T/o" 2>"$T/e"
check "overridden pattern the reference does not meet: exit 2, one line" \
  "one_line_2 $? 'emit: call 0 would get \"toolu_' && grep -qF 'breaks the anthropic rule (does not match ^x+\$)' '$T/e'"

# Kimi server IDs let through by an overridden server pattern take the indices of later calls of
# the same tool, which can then only get IDs whose index is not their own.
python3 -c "import json;M=50;json.dump({'turns':[{'role':'assistant','provider':'anthropic','calls':
[{'id':'functions.f:%d'%(M+j),'name':'f','server':True} for j in range(M)]+[{'id':None,'name':'f'} for j in range(M)]}]},
open('$T/kimi.json','w'))"
"$CS" emit --target kimi --rule 'kimi.server_pattern=^functions\.' "$T/kimi.json" >"$T/o" 2>"$T/e"
check "kimi call pushed off its index: exit 2, one line" \
  "one_line_2 $? 'emit: call 50 would get \"functions.f:100\", which breaks the kimi rule (index is not the call'"
"$CS" emit --target kimi "$T/kimi.json" >"$T/o" 2>"$T/e"
check "the same history under kimi's own rule: exit 0" "[ $? -eq 0 ] && grep -q 'functions.f:99' '$T/o'"

# A long ID in the message is cut, and stays on one line.
"$CS" emit --target mistral --rule mistral.min_len=5000 --rule mistral.max_len=0 "$T/h40.json" >"$T/o" 2>"$T/e"
check "an ID of 5000 characters is cut in the message" "one_line_2 $? 'does not match' && [ \$(wc -c <'$T/e') -lt 300 ]"

finish
