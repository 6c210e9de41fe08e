//go:build e2e

package lab

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// signToken makes a JWT of claims signed with key as kid (alg RS256 unless alg says otherwise).
func signToken(t *testing.T, key *rsa.PrivateKey, kid, alg string, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": alg, "kid": kid}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// Each check STS makes of a web identity token refuses the token it is there for: one whose
// payload was changed after signing (forged), one signed by a key the issuer does not publish or
// by another issuer's key under its key id (foreign), one not signed RS256, one that names
// another issuer, and one past its expiry; the token as the API server issues it passes.
func TestTokenChecksRefuseForgedForeignAndExpiredTokens(t *testing.T) {
	const issuer = "https://oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]*rsa.PublicKey{"k1": &key.PublicKey}
	now := time.Unix(1_800_000_000, 0)
	claims := func(iss string, exp time.Time) map[string]any {
		return map[string]any{"iss": iss, "sub": "system:serviceaccount:kube-system:karpenter", "aud": []string{"sts.amazonaws.com"}, "exp": exp.Unix()}
	}
	valid := signToken(t, key, "k1", "RS256", claims(issuer, now.Add(time.Hour)))
	if c, err := checkToken(valid, issuer, keys, now); err != nil || c.Subject != "system:serviceaccount:kube-system:karpenter" {
		t.Fatalf("the issuer's own token: %+v, %v", c, err)
	}
	parts := strings.Split(valid, ".")
	forgedClaims := claims(issuer, now.Add(time.Hour))
	forgedClaims["sub"] = "system:serviceaccount:kube-system:attacker"
	forgedPayload, _ := json.Marshal(forgedClaims)
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString(forgedPayload) + "." + parts[2]
	for _, c := range []struct {
		name, token, want string
	}{
		{"forged payload", forged, "signature"},
		{"another key under the issuer's key id", signToken(t, other, "k1", "RS256", claims(issuer, now.Add(time.Hour))), "signature"},
		{"a key the issuer does not publish", signToken(t, other, "k2", "RS256", claims(issuer, now.Add(time.Hour))), `key "k2", which the issuer does not publish`},
		{"not RS256", signToken(t, key, "k1", "RS384", claims(issuer, now.Add(time.Hour))), "signed with RS384"},
		{"another issuer", signToken(t, key, "k1", "RS256", claims("https://oidc.eks.us-west-2.amazonaws.com/id/OTHER", now.Add(time.Hour))), "is not its signer's"},
		{"expired", signToken(t, key, "k1", "RS256", claims(issuer, now.Add(-time.Second))), "token expired"},
		{"not a JWT", "abc.def", "not a JWT"},
	} {
		_, err := checkToken(c.token, issuer, keys, now)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.want)
		}
		if c.name == "expired" && !errors.Is(err, errTokenExpired) {
			t.Errorf("expired: %v is not errTokenExpired (STS answers ExpiredTokenException)", err)
		}
	}
}

// Reading the controller's log for RBAC refusals fails closed: no log of a process that ran, or
// one that cannot be read, is an error, never "nothing refused".
func TestForbiddenFailsClosed(t *testing.T) {
	dir := t.TempDir()
	k := &Karpenter{dir: dir, runs: 1}
	if got, err := k.Forbidden(); err == nil {
		t.Errorf("a process ran and left no log: %v, want an error", got)
	}
	if err := os.Mkdir(filepath.Join(dir, "karpenter-1.log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Forbidden(); err == nil {
		t.Errorf("a log that cannot be read: %v, want an error", got)
	}
	if err := os.Remove(filepath.Join(dir, "karpenter-1.log")); err != nil {
		t.Fatal(err)
	}
	log := `{"level":"ERROR","error":"nodeclaims.karpenter.sh is forbidden: User \"system:serviceaccount:kube-system:karpenter\" cannot create resource \"nodeclaims\" in API group \"karpenter.sh\" at the cluster scope"}`
	if err := os.WriteFile(filepath.Join(dir, "karpenter-1.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Forbidden(); err != nil || len(got) != 1 || got[0] != "system:serviceaccount:kube-system:karpenter cannot create nodeclaims.karpenter.sh" {
		t.Errorf("a refusal in the log: %v, %v", got, err)
	}
}
