package render

import "testing"

// EC2's filter values take `*` (any characters), `?` (one) and `\` (the next character as it is).
func TestFilterValuesMatchAsEC2Does(t *testing.T) {
	for _, tc := range []struct {
		pattern, value string
		match          bool
	}{
		{"private", "private", true}, {"private", "private-a", false},
		{"private-*", "private-a", true}, {"private-*", "private-", true}, {"private-*", "public-a", false},
		{"*-a", "private-a", true}, {"subnet-?", "subnet-1", true}, {"subnet-?", "subnet-12", false},
		{`a\*b`, "a*b", true}, {`a\*b`, "axb", false}, {"a.b", "axb", false}, {"zone-é*", "zone-éa", true},
	} {
		if got := filterValueMatches(tc.pattern, tc.value); got != tc.match {
			t.Errorf("%q against %q = %v, want %v", tc.pattern, tc.value, got, tc.match)
		}
	}
}
