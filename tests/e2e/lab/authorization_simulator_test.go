//go:build e2e

package lab

import (
	"strings"
	"testing"
)

// The lab's workarounds of the IAM simulator's gaps keep IAM's answers: public SSM parameters
// (no account in their ARN) and an EKS issuer's condition keys.

func TestPublicParameterUnderTheSimulator(t *testing.T) {
	const param = "arn:aws:ssm:us-west-2::parameter/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"
	policy := func(resource string) []IAMPolicy {
		return []IAMPolicy{{Name: "p", Policy: map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{
			"Sid": "SSM", "Effect": "Allow", "Action": "ssm:GetParameter", "Resource": resource}}}}}
	}
	for _, c := range []struct{ resource, want string }{
		{"arn:aws:ssm:us-west-2::parameter/aws/service/*", "Allowed"},
		{"arn:aws:ssm:*::parameter/aws/service/*", "Allowed"},
		{"arn:aws:ssm:us-west-2:*:parameter/aws/service/*", "Allowed"},
		{"arn:aws:ssm:us-west-2:123456789012:parameter/aws/service/*", "ImplicitlyDenied"},
		{"arn:aws:ssm:us-east-1::parameter/aws/service/*", "ImplicitlyDenied"},
		{"arn:aws:ssm:us-west-2::parameter/aws/other/*", "ImplicitlyDenied"},
	} {
		res, err := Simulate("arn:aws:iam::123456789012:role/r", policy(c.resource), []IAMRequest{{Action: "ssm:GetParameter", Resource: param, Context: map[string]any{}}})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Result != c.want {
			t.Errorf("statement on %s: %s %s, want %s", c.resource, res[0].Result, res[0].Errors, c.want)
		}
	}
}

func TestWebIdentityTrustUnderTheSimulator(t *testing.T) {
	const host = "oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"
	provider := "arn:aws:iam::123456789012:oidc-provider/" + host
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"` + provider + `"},
		"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"` + host + `:sub":"system:serviceaccount:kube-system:karpenter","` + host + `:aud":"sts.amazonaws.com"}}}]}`
	claims := func(sub, aud string) tokenClaims { return tokenClaims{Subject: sub, Audiences: audience{aud}} }
	for _, c := range []struct {
		name, provider, trust string
		claims                tokenClaims
		want                  string // "" allowed, else a part of why not
	}{
		{"the named service account", provider, trust, claims("system:serviceaccount:kube-system:karpenter", "sts.amazonaws.com"), ""},
		{"another service account", provider, trust, claims("system:serviceaccount:kube-system:other", "sts.amazonaws.com"), host + `:sub "system:serviceaccount:kube-system:karpenter"`},
		{"another audience", provider, trust, claims("system:serviceaccount:kube-system:karpenter", "other"), host + `:aud "sts.amazonaws.com"`},
		{"another cluster's issuer in the trust policy", provider, strings.ReplaceAll(trust, host+":", "oidc.eks.us-west-2.amazonaws.com/id/OTHER:"), claims("system:serviceaccount:kube-system:karpenter", "sts.amazonaws.com"), "not in the request"},
		{"another provider", "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/OTHER", trust, claims("system:serviceaccount:kube-system:karpenter", "sts.amazonaws.com"), "principal"},
	} {
		why, err := evaluateWebIdentityTrust(c.trust, c.provider, "arn:aws:iam::123456789012:role/r", host, c.claims)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && why != "":
			t.Errorf("%s: refused: %s", c.name, why)
		case c.want != "" && !strings.Contains(why, c.want):
			t.Errorf("%s: %q, want a refusal naming %q", c.name, why, c.want)
		}
	}
}
