//go:build e2e

package main

import "testing"

// TestPolicyEquivalence: IAM documents compare as terraform compares them (a single value is a
// one-element list; lists and statements are sets), so an imported trust policy written with
// lists is not an update of the program's; any other difference still is, and documents that are
// not IAM policies compare exactly.
func TestPolicyEquivalence(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":["ec2.amazonaws.com"]},"Action":["sts:AssumeRole"]}]}`, true},
		{`{"Statement":[{"Effect":"Allow","Action":["a","b"],"Resource":"*"},{"Sid":"x","Effect":"Deny","Action":"c","Resource":"*"}]}`,
			`{"Statement":[{"Sid":"x","Effect":"Deny","Action":["c"],"Resource":["*"]},{"Effect":"Allow","Action":["b","a"],"Resource":"*"}]}`, true},
		{`{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*","Condition":{"StringEquals":{"k":"v"}}}]}`,
			`{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*","Condition":{"StringEquals":{"k":["v"]}}}]}`, true},
		{`{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*"}]}`, `{"Statement":[{"Effect":"Allow","Action":"b","Resource":"*"}]}`, false},
		{`{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*"}]}`, `{"Statement":[{"Effect":"Deny","Action":"a","Resource":"*"}]}`, false},
		{`{"Id":"p","Statement":[{"Effect":"Allow","Action":"a","Resource":"*"}]}`, `{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*"}]}`, false},
		{`{"source":["aws.ec2"]}`, `{"source":"aws.ec2"}`, false},
	} {
		if got := jsonEquivalent(c.a, c.b); got != c.same {
			t.Errorf("jsonEquivalent(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
