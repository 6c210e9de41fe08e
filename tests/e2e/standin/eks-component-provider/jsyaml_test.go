//go:build e2e

package main

import "testing"

// The expected documents below were printed by js-yaml 4.2.0's dump (the version pulumi-eks
// 4.3.0's yarn.lock pins), for [{rolearn: in, groups: [in]}]: the string as a mapping value
// (level 2, width 76) and as a sequence item (level 3, width 74):
//
//	node -e 'const y = require("js-yaml"); console.log(JSON.stringify(y.dump([{rolearn: s, groups: [s]}])))'
func TestDumpYAMLAsJSYAML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"arn:aws:iam::123456789012:role/admin", "- rolearn: arn:aws:iam::123456789012:role/admin\n  groups:\n    - arn:aws:iam::123456789012:role/admin\n"},
		{"system:node:{{EC2PrivateDNSName}}", "- rolearn: system:node:{{EC2PrivateDNSName}}\n  groups:\n    - system:node:{{EC2PrivateDNSName}}\n"},
		{"{{SessionName}}", "- rolearn: '{{SessionName}}'\n  groups:\n    - '{{SessionName}}'\n"},
		{"system:masters", "- rolearn: system:masters\n  groups:\n    - system:masters\n"},
		{"arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_AdministratorAccess_0123456789abcdef", "- rolearn: >-\n    arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_AdministratorAccess_0123456789abcdef\n  groups:\n    - >-\n      arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_AdministratorAccess_0123456789abcdef\n"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "- rolearn: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  groups:\n    - xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "- rolearn: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  groups:\n    - >-\n      xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "- rolearn: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  groups:\n    - >-\n      xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "- rolearn: >-\n    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  groups:\n    - >-\n      xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"},
		{"a sentence of many short words that goes on and on past the line width of eighty characters for sure", "- rolearn: >-\n    a sentence of many short words that goes on and on past the line width of\n    eighty characters for sure\n  groups:\n    - >-\n      a sentence of many short words that goes on and on past the line width of\n      eighty characters for sure\n"},
		{"true", "- rolearn: 'true'\n  groups:\n    - 'true'\n"},
		{"123", "- rolearn: '123'\n  groups:\n    - '123'\n"},
		{"0x1F", "- rolearn: '0x1F'\n  groups:\n    - '0x1F'\n"},
		{"0x", "- rolearn: 0x\n  groups:\n    - 0x\n"},
		{"1e3", "- rolearn: '1e3'\n  groups:\n    - '1e3'\n"},
		{"1_000", "- rolearn: 1_000\n  groups:\n    - 1_000\n"},
		{"0o17", "- rolearn: '0o17'\n  groups:\n    - '0o17'\n"},
		{"0b101", "- rolearn: '0b101'\n  groups:\n    - '0b101'\n"},
		{"012", "- rolearn: '012'\n  groups:\n    - '012'\n"},
		{"2001-01-01", "- rolearn: '2001-01-01'\n  groups:\n    - '2001-01-01'\n"},
		{"2001-12-14t21:59:43.10-05:00", "- rolearn: '2001-12-14t21:59:43.10-05:00'\n  groups:\n    - '2001-12-14t21:59:43.10-05:00'\n"},
		{"12:30", "- rolearn: '12:30'\n  groups:\n    - '12:30'\n"},
		{"yes", "- rolearn: 'yes'\n  groups:\n    - 'yes'\n"},
		{"Off", "- rolearn: 'Off'\n  groups:\n    - 'Off'\n"},
		{"null", "- rolearn: 'null'\n  groups:\n    - 'null'\n"},
		{"~", "- rolearn: '~'\n  groups:\n    - '~'\n"},
		{"<<", "- rolearn: '<<'\n  groups:\n    - '<<'\n"},
		{"", "- rolearn: ''\n  groups:\n    - ''\n"},
		{" lead", "- rolearn: ' lead'\n  groups:\n    - ' lead'\n"},
		{"trail ", "- rolearn: 'trail '\n  groups:\n    - 'trail '\n"},
		{"a: b", "- rolearn: 'a: b'\n  groups:\n    - 'a: b'\n"},
		{"a:b", "- rolearn: a:b\n  groups:\n    - a:b\n"},
		{"a #b", "- rolearn: 'a #b'\n  groups:\n    - 'a #b'\n"},
		{"a#b", "- rolearn: a#b\n  groups:\n    - a#b\n"},
		{"#a", "- rolearn: '#a'\n  groups:\n    - '#a'\n"},
		{"- a", "- rolearn: '- a'\n  groups:\n    - '- a'\n"},
		{"-a", "- rolearn: '-a'\n  groups:\n    - '-a'\n"},
		{"-", "- rolearn: '-'\n  groups:\n    - '-'\n"},
		{"?", "- rolearn: '?'\n  groups:\n    - '?'\n"},
		{":a", "- rolearn: ':a'\n  groups:\n    - ':a'\n"},
		{"a:", "- rolearn: 'a:'\n  groups:\n    - 'a:'\n"},
		{"@a", "- rolearn: '@a'\n  groups:\n    - '@a'\n"},
		{"`a", "- rolearn: '`a'\n  groups:\n    - '`a'\n"},
		{"%a", "- rolearn: '%a'\n  groups:\n    - '%a'\n"},
		{"!a", "- rolearn: '!a'\n  groups:\n    - '!a'\n"},
		{"&a", "- rolearn: '&a'\n  groups:\n    - '&a'\n"},
		{"*a", "- rolearn: '*a'\n  groups:\n    - '*a'\n"},
		{"|a", "- rolearn: '|a'\n  groups:\n    - '|a'\n"},
		{">a", "- rolearn: '>a'\n  groups:\n    - '>a'\n"},
		{"=a", "- rolearn: '=a'\n  groups:\n    - '=a'\n"},
		{"'a", "- rolearn: '''a'\n  groups:\n    - '''a'\n"},
		{"\"a\"", "- rolearn: '\"a\"'\n  groups:\n    - '\"a\"'\n"},
		{"it's", "- rolearn: it's\n  groups:\n    - it's\n"},
		{"a,b", "- rolearn: a,b\n  groups:\n    - a,b\n"},
		{"[a]", "- rolearn: '[a]'\n  groups:\n    - '[a]'\n"},
		{"{a}", "- rolearn: '{a}'\n  groups:\n    - '{a}'\n"},
		{"a[b]", "- rolearn: a[b]\n  groups:\n    - a[b]\n"},
		{"a\nb", "- rolearn: |-\n    a\n    b\n  groups:\n    - |-\n      a\n      b\n"},
		{"a\n", "- rolearn: |\n    a\n  groups:\n    - |\n      a\n"},
		{"a\n\n", "- rolearn: |+\n    a\n\n  groups:\n    - |+\n      a\n\n"},
		{"\n", "- rolearn: |+\n\n  groups:\n    - |+\n\n"},
		{" a\nb", "- rolearn: |2-\n     a\n    b\n  groups:\n    - |2-\n       a\n      b\n"},
		{"tab\there", "- rolearn: \"tab\\there\"\n  groups:\n    - \"tab\\there\"\n"},
		{"bell\a", "- rolearn: \"bell\\a\"\n  groups:\n    - \"bell\\a\"\n"},
		{"ó", "- rolearn: ó\n  groups:\n    - ó\n"},
		{"😀 emoji", "- rolearn: 😀 emoji\n  groups:\n    - 😀 emoji\n"},
		{"\u2028", "- rolearn: \"\\L\"\n  groups:\n    - \"\\L\"\n"},
		{"\u0085x", "- rolearn: \"\\Nx\"\n  groups:\n    - \"\\Nx\"\n"},
		{"\u00a0nbsp", "- rolearn: \"\\_nbsp\"\n  groups:\n    - \"\\_nbsp\"\n"},
		{"\ufeffbom", "- rolearn: \"\\uFEFFbom\"\n  groups:\n    - \"\\uFEFFbom\"\n"},
		{"esc\\\"", "- rolearn: esc\\\"\n  groups:\n    - esc\\\"\n"},
		{".inf", "- rolearn: '.inf'\n  groups:\n    - '.inf'\n"},
		{"-.Inf", "- rolearn: '-.Inf'\n  groups:\n    - '-.Inf'\n"},
		{".NaN", "- rolearn: '.NaN'\n  groups:\n    - '.NaN'\n"},
		{"+1", "- rolearn: '+1'\n  groups:\n    - '+1'\n"},
		{"-0", "- rolearn: '-0'\n  groups:\n    - '-0'\n"},
		{"0", "- rolearn: '0'\n  groups:\n    - '0'\n"},
		{"1.", "- rolearn: '1.'\n  groups:\n    - '1.'\n"},
		{".5", "- rolearn: '.5'\n  groups:\n    - '.5'\n"},
		{"1e400", "- rolearn: 1e400\n  groups:\n    - 1e400\n"},
		{"+", "- rolearn: +\n  groups:\n    - +\n"},
		{"-", "- rolearn: '-'\n  groups:\n    - '-'\n"},
		{"first line\nsecond line that is rather long and keeps going well past the configured width of the dump\n  more indented\nlast", "- rolearn: >-\n    first line\n\n    second line that is rather long and keeps going well past the configured\n    width of the dump\n      more indented\n    last\n  groups:\n    - >-\n      first line\n\n      second line that is rather long and keeps going well past the configured\n      width of the dump\n        more indented\n      last\n"},
		{"😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀", "- rolearn: >-\n    😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀\n  groups:\n    - >-\n      😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀\n"},
	} {
		got, err := dumpYAML([][]yamlField{{{"rolearn", tc.in}, {"groups", []any{tc.in}}}})
		if err != nil || got != tc.want {
			t.Errorf("dump of %q:\n got %q, %v\nwant %q", tc.in, got, err, tc.want)
		}
	}
}

func TestDumpYAMLShapes(t *testing.T) {
	// js-yaml: [] for an empty sequence, {} for a mapping with no defined value, null for null.
	for _, tc := range []struct {
		in   [][]yamlField
		want string
	}{
		{nil, "[]\n"},
		{[][]yamlField{{}}, "- {}\n"},
		{[][]yamlField{{{"username", nil}, {"groups", []any{}}}, {{"groups", []any{nil, "a"}}}}, "- username: null\n  groups: []\n- groups:\n    - null\n    - a\n"},
	} {
		if got, err := dumpYAML(tc.in); err != nil || got != tc.want {
			t.Errorf("dump %v = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := dumpYAML([][]yamlField{{{"rolearn", 1.0}}}); err == nil {
		t.Error("a number was written: the stand-in writes strings only")
	}
}
