package lab

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The controller's identities, as a cluster on EKS gives them to its pod, and as AWS checks them.
//
// Kubernetes: the pod runs as its service account; the kubelet mounts a token for it (a
// TokenRequest bound to the pod), and every call the controller makes is authorized by the RBAC
// the chart gave that account.
//
// AWS, IRSA: EKS's pod identity webhook (amazon-eks-pod-identity-webhook) sees the service account's
// eks.amazonaws.com/role-arn annotation and gives the pod AWS_ROLE_ARN and a second projected
// token, for the audience sts.amazonaws.com, in AWS_WEB_IDENTITY_TOKEN_FILE; the AWS SDK trades it
// for credentials with sts:AssumeRoleWithWebIdentity. STS checks the token (signed by the keys of
// its issuer, an OIDC provider registered in the account for that issuer, an audience the
// provider lists, not expired) and the role's trust policy against the token's claims
// (<issuer>:sub, <issuer>:aud). The recorder in front of moto does STS's part (moto's STS hands
// out credentials for any token and role): identityChecks.webIdentity.

// Web identity as EKS's pod identity webhook configures it (amazon-eks-pod-identity-webhook
// README: the annotations, the defaults, the environment it injects).
const (
	irsaRoleAnnotation       = "eks.amazonaws.com/role-arn"
	irsaAudienceAnnotation   = "eks.amazonaws.com/audience"
	irsaExpirationAnnotation = "eks.amazonaws.com/token-expiration"
	IRSADefaultAudience      = "sts.amazonaws.com"
	irsaDefaultExpiration    = 86400
)

// serviceAccountToken is a token for the pod's service account, bound to the pod (as a projected
// volume's: it is valid only while the pod exists), for audiences (none: the API server's own).
func serviceAccountToken(ctx context.Context, cs *kubernetes.Clientset, pod *corev1.Pod, audiences []string, seconds int64) (string, error) {
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences:         audiences,
		ExpirationSeconds: &seconds,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	out, err := cs.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("a token for service account %s/%s: %w", pod.Namespace, sa, err)
	}
	return out.Status.Token, nil
}

// irsaEnv is what EKS's pod identity webhook injects into the pod when its service account
// carries the role annotation (nil: it does not; the pod then has no AWS credentials), with the
// web identity token written to tokenFile.
func irsaEnv(ctx context.Context, cs *kubernetes.Clientset, pod *corev1.Pod, tokenFile string, write func(path, content string) error) (map[string]string, error) {
	sa, err := cs.CoreV1().ServiceAccounts(pod.Namespace).Get(ctx, pod.Spec.ServiceAccountName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the pod's service account: %w", err)
	}
	role := sa.Annotations[irsaRoleAnnotation]
	if role == "" {
		return nil, nil
	}
	audience := IRSADefaultAudience
	if a := sa.Annotations[irsaAudienceAnnotation]; a != "" {
		audience = a
	}
	seconds := int64(irsaDefaultExpiration)
	if s, err := strconv.ParseInt(sa.Annotations[irsaExpirationAnnotation], 10, 64); err == nil {
		seconds = s
	}
	token, err := serviceAccountToken(ctx, cs, pod, []string{audience}, seconds)
	if err != nil {
		return nil, err
	}
	if err := write(tokenFile, token); err != nil {
		return nil, err
	}
	return map[string]string{
		"AWS_ROLE_ARN":                role,
		"AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile,
		"AWS_STS_REGIONAL_ENDPOINTS":  "regional",
		"AWS_REGION":                  Region,
		"AWS_DEFAULT_REGION":          Region,
	}, nil
}

// tokenClaims are the claims of a service-account token STS reads.
type tokenClaims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"`
	Audiences audience `json:"aud"`
	Expiry    int64    `json:"exp"`
	// Kubernetes is the API server's own claim: the pod a bound token is for.
	Kubernetes struct {
		Pod struct{ Name, UID string } `json:"pod"`
	} `json:"kubernetes.io"`
}

// audience is a JWT aud: one string or a list.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*a = []string{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(a))
}

// issuerKeys reads the issuer and the signing keys the API server publishes for its
// service-account tokens (OIDC discovery): what STS reads from <issuer>/.well-known/openid-
// configuration and its jwks_uri. The issuer's host is EKS's, not reachable here; the document is
// the API server's own, and it names the issuer.
func issuerKeys(ctx context.Context, cs *kubernetes.Clientset) (string, map[string]*rsa.PublicKey, error) {
	raw, err := cs.RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("the API server's OIDC discovery document: %w", err)
	}
	var disc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.Unmarshal(raw, &disc); err != nil {
		return "", nil, err
	}
	raw, err = cs.RESTClient().Get().AbsPath("/openid/v1/jwks").DoRaw(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("the API server's JWKS: %w", err)
	}
	var jwks struct {
		Keys []struct{ Kty, Kid, N, E string } `json:"keys"`
	}
	if err := json.Unmarshal(raw, &jwks); err != nil {
		return "", nil, err
	}
	keys := map[string]*rsa.PublicKey{}
	for _, k := range jwks.Keys {
		if k.Kty != "RSA" {
			continue
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err := errors.Join(err1, err2); err != nil {
			return "", nil, fmt.Errorf("JWKS key %s: %w", k.Kid, err)
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return disc.Issuer, keys, nil
}

// verifyToken checks a token's RS256 signature against keys and returns its claims.
func verifyToken(token string, keys map[string]*rsa.PublicKey) (tokenClaims, error) {
	var claims tokenClaims
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims, errors.New("not a JWT")
	}
	var header struct{ Alg, Kid string }
	h, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	p, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err := errors.Join(err1, err2, err3, json.Unmarshal(h, &header), json.Unmarshal(p, &claims)); err != nil {
		return claims, fmt.Errorf("not a JWT: %w", err)
	}
	key := keys[header.Kid]
	if header.Alg != "RS256" || key == nil {
		return claims, fmt.Errorf("signed with %s key %q, which the issuer does not publish", header.Alg, header.Kid)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
		return claims, fmt.Errorf("signature: %w", err)
	}
	return claims, nil
}

// TrustVerdict is STS's answer to one sts:AssumeRoleWithWebIdentity, as the lab evaluated it.
type TrustVerdict struct {
	Role     string // the role asked for
	Provider string // the OIDC provider of the token's issuer ("" when the account has none)
	Subject  string // the token's sub
	Audience string // the token's aud
	// Code and Message are STS's error ("" when allowed): InvalidIdentityToken, ExpiredTokenException,
	// AccessDenied; Message says which check failed and, for the trust policy, which claim.
	Code, Message string
}

// identityChecks does what STS (sts:AssumeRoleWithWebIdentity) and EKS Auth (Pod Identity) check
// before they give a role's credentials, against the world's API server (the tokens' issuer) and
// moto's IAM (the OIDC provider, the role's trust policy).
type identityChecks struct {
	cs  *kubernetes.Clientset
	iam *iam.Client
}

// errTokenExpired: the token was valid but is past its expiry.
var errTokenExpired = errors.New("token expired")

// token checks a service-account token as STS and EKS Auth do: signed with a key its issuer
// publishes, issued as that issuer, not expired (errTokenExpired). The claims are returned
// whenever they could be read, so a refusal can name them.
func (s *identityChecks) token(ctx context.Context, raw string) (tokenClaims, error) {
	issuer, keys, err := issuerKeys(ctx, s.cs)
	if err != nil {
		return tokenClaims{}, fmt.Errorf("couldn't retrieve the verification keys of the issuer: %w", err)
	}
	return checkToken(raw, issuer, keys, time.Now())
}

// checkToken checks a token against the issuer and the keys it publishes, at now.
func checkToken(raw, issuer string, keys map[string]*rsa.PublicKey, now time.Time) (tokenClaims, error) {
	claims, err := verifyToken(raw, keys)
	switch {
	case err != nil:
		return claims, err
	case claims.Issuer != issuer:
		return claims, fmt.Errorf("the token's issuer %s is not its signer's (%s)", claims.Issuer, issuer)
	case now.Unix() >= claims.Expiry:
		return claims, fmt.Errorf("%w: current date/time %d must be before the expiration date/time %d", errTokenExpired, now.Unix(), claims.Expiry)
	}
	return claims, nil
}

// trustPolicy is the trust policy of the role (its ARN), as moto holds it.
func (s *identityChecks) trustPolicy(ctx context.Context, role string) (string, error) {
	out, err := s.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(role[strings.LastIndex(role, "/")+1:])})
	if err != nil {
		return "", fmt.Errorf("role %s: %w", role, err)
	}
	doc, err := url.QueryUnescape(aws.ToString(out.Role.AssumeRolePolicyDocument))
	if err != nil {
		return "", fmt.Errorf("role %s: trust policy: %w", role, err)
	}
	return doc, nil
}

// webIdentity evaluates one AssumeRoleWithWebIdentity (its form parameters) as STS does.
func (s *identityChecks) webIdentity(ctx context.Context, params url.Values) TrustVerdict {
	v := TrustVerdict{Role: params.Get("RoleArn")}
	deny := func(code, format string, a ...any) TrustVerdict {
		v.Code, v.Message = code, fmt.Sprintf(format, a...)
		return v
	}
	claims, err := s.token(ctx, params.Get("WebIdentityToken"))
	v.Subject, v.Audience = claims.Subject, strings.Join(claims.Audiences, ",")
	switch {
	case errors.Is(err, errTokenExpired):
		return deny("ExpiredTokenException", "Token expired: %v", err)
	case err != nil:
		return deny("InvalidIdentityToken", "The web identity token is not valid: %v", err)
	}
	host := strings.TrimPrefix(claims.Issuer, "https://")
	v.Provider = fmt.Sprintf("arn:aws:iam::%s:oidc-provider/%s", MotoAccount, host)
	provider, err := s.iam.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(v.Provider)})
	if err != nil {
		v.Provider = ""
		return deny("InvalidIdentityToken", "No OpenIDConnect provider found in your account for %s", claims.Issuer)
	}
	if !anyIn(claims.Audiences, provider.ClientIDList) {
		return deny("InvalidIdentityToken", "Incorrect token audience: the token is for %v, the OIDC provider %s lists %v", []string(claims.Audiences), v.Provider, provider.ClientIDList)
	}
	doc, err := s.trustPolicy(ctx, v.Role)
	if err != nil {
		return deny("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity: %v", err)
	}
	if why, err := evaluateWebIdentityTrust(doc, v.Provider, v.Role, host, claims); err != nil {
		return deny("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity: evaluating the trust policy: %v", err)
	} else if why != "" {
		return deny("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity: %s", why)
	}
	return v
}

// simulatorOIDCKeyPrefix stands in, for the IAM simulator only, for the issuer's condition keys.
// @cloud-copilot/iam-simulate keeps a request's condition keys only when the service
// authorization reference lists them for the action; it lists, for sts:AssumeRoleWithWebIdentity,
// the keys of named providers (accounts.google.com:sub …) but not those of an EKS cluster's issuer
// (oidc.eks.<region>.amazonaws.com/id/<id>:sub), which it would drop as unknown and then treat
// as missing. The issuer's keys are renamed to a listed provider's, in the trust policy and in the
// request alike: the same operators then compare the same values. Keys of any other issuer keep
// their names and stay missing, as they are for AWS.
const simulatorOIDCKeyPrefix = "accounts.google.com:"

// evaluateWebIdentityTrust evaluates a role's trust policy for sts:AssumeRoleWithWebIdentity by
// the provider's token with claims; "" when it allows, else why not, naming each claim that
// failed with the token's value and what the policy asks.
func evaluateWebIdentityTrust(trust, provider, role, issuerHost string, claims tokenClaims) (string, error) {
	var policy map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(trust, issuerHost+":", simulatorOIDCKeyPrefix)), &policy); err != nil {
		return "", err
	}
	ctx := map[string]any{simulatorOIDCKeyPrefix + "sub": claims.Subject, simulatorOIDCKeyPrefix + "aud": []string(claims.Audiences)}
	if len(claims.Audiences) == 1 {
		ctx[simulatorOIDCKeyPrefix+"aud"] = claims.Audiences[0]
	}
	results, err := SimulateWithResourcePolicy(provider, nil, policy, []IAMRequest{{Action: "sts:AssumeRoleWithWebIdentity", Resource: role, Context: ctx}})
	if err != nil {
		return "", err
	}
	if len(results) != 1 {
		return "", fmt.Errorf("the simulator answered %d results", len(results))
	}
	r := results[0]
	if r.Result == "Allowed" {
		return "", nil
	}
	if r.Errors != "" {
		return "", errors.New(r.Errors)
	}
	var why []string
	for _, c := range r.Candidates {
		why = append(why, fmt.Sprintf("statement %s: %s", c.Statement, strings.ReplaceAll(c.Failed, simulatorOIDCKeyPrefix, issuerHost+":")))
	}
	sort.Strings(why)
	if len(why) == 0 {
		why = []string{fmt.Sprintf("no statement of the trust policy of %s allows the federated principal %s", role, provider)}
	}
	return fmt.Sprintf("%s (the token's sub is %q, its aud %q)", strings.Join(why, "; "), claims.Subject, strings.Join(claims.Audiences, ",")), nil
}

func anyIn(values, list []string) bool {
	for _, v := range values {
		for _, l := range list {
			if v == l {
				return true
			}
		}
	}
	return false
}
