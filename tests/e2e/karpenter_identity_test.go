//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// The controller's identities in the loop (lab/identity.go, lab/podidentity.go): checks and bites.

// trustBiteSession is the session name of the bites' own web identity assumptions, which are not
// the controller's (checkControllerSessions leaves them out).
const trustBiteSession = "trust-bite"

// checkControllerIdentity: the controller process talks to the API server as the chart's service
// account (the API server says who its token is), and to AWS with the role the component put on
// that account — no static credentials, and nothing of the runner's it could fall back on (its
// HOME, shared AWS config or credentials files, AWS_* variables).
func checkControllerIdentity(t *testing.T, w *karpenterWorld, role string) {
	t.Helper()
	env := w.karpenter.Env()
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("who the controller's kubeconfig is: %v", err)
	}
	if u := review.Status.UserInfo.Username; u != "system:serviceaccount:kube-system:karpenter" {
		t.Errorf("the controller talks to the API server as %q, want the chart's service account system:serviceaccount:kube-system:karpenter", u)
	}
	if env["HOME"] == os.Getenv("HOME") || env["AWS_CONFIG_FILE"] != os.DevNull || env["AWS_SHARED_CREDENTIALS_FILE"] != os.DevNull {
		t.Errorf("the controller could read the runner's AWS configuration: HOME=%q AWS_CONFIG_FILE=%q AWS_SHARED_CREDENTIALS_FILE=%q", env["HOME"], env["AWS_CONFIG_FILE"], env["AWS_SHARED_CREDENTIALS_FILE"])
	}
	for key := range env {
		if strings.HasPrefix(key, "AWS_") && os.Getenv(key) != "" && env[key] == os.Getenv(key) && key != "AWS_REGION" {
			t.Errorf("the controller has the runner's %s", key)
		}
	}
	if env["AWS_ROLE_ARN"] != role || env["AWS_WEB_IDENTITY_TOKEN_FILE"] == "" || env["AWS_ACCESS_KEY_ID"] != "" {
		t.Errorf("the controller's AWS identity: AWS_ROLE_ARN=%q AWS_WEB_IDENTITY_TOKEN_FILE=%q AWS_ACCESS_KEY_ID=%q, want IRSA with the controller role %s only",
			env["AWS_ROLE_ARN"], env["AWS_WEB_IDENTITY_TOKEN_FILE"], env["AWS_ACCESS_KEY_ID"], role)
	}
}

// checkTrustPolicyBites: STS, as the recorder plays it, gives the controller role's credentials
// to the token of the controller's service account and to no other: a service account of another
// name or in another namespace is refused by the role's trust policy, naming the sub claim; a
// token for another audience is refused by the OIDC provider, and — once the provider lists that
// audience too — by the trust policy's aud condition, naming the aud claim; the controller's own
// token is refused when the account has no OIDC provider of its issuer, and with its payload
// changed after signing. Each through the same
// endpoint the controller uses, with a real token of the API server. (Tokens signed by another
// key, for another issuer or expired: lab's TestTokenChecksRefuseForgedForeignAndExpiredTokens.)
func checkTrustPolicyBites(t *testing.T, w *karpenterWorld, role string) {
	t.Helper()
	ctx := context.Background()
	assumeWith := func(token string) error {
		client := sts.NewFromConfig(aws.Config{Region: lab.Region, BaseEndpoint: aws.String(w.recorder.URL)})
		_, err := client.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{
			RoleArn: aws.String(role), RoleSessionName: aws.String(trustBiteSession), WebIdentityToken: aws.String(token)})
		return err
	}
	assume := func(namespace, account, audience string) error {
		return assumeWith(accountToken(t, w, namespace, account, audience))
	}
	if err := assume("kube-system", "karpenter", lab.IRSADefaultAudience); err != nil {
		t.Fatalf("the controller's own service account is refused the role: %v (the bites below would prove nothing)", err)
	}
	const otherAudience = "other.example.com"
	for _, c := range []struct{ namespace, account, audience, want string }{
		{"kube-system", "not-karpenter", lab.IRSADefaultAudience, ":sub "},
		{"default", "karpenter", lab.IRSADefaultAudience, ":sub "},
		{"kube-system", "karpenter", otherAudience, "Incorrect token audience"},
	} {
		err := assume(c.namespace, c.account, c.audience)
		subject := "system:serviceaccount:" + c.namespace + ":" + c.account
		switch {
		case err == nil:
			t.Errorf("%s (audience %s) was given the controller role's credentials", subject, c.audience)
		case c.want == "Incorrect token audience" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s (audience %s): %v, want InvalidIdentityToken %q", subject, c.audience, err, c.want)
		case c.want != "Incorrect token audience" && !(strings.Contains(err.Error(), "AccessDenied") && strings.Contains(err.Error(), c.want) && strings.Contains(err.Error(), fmt.Sprintf("the token's sub is %q", subject))):
			t.Errorf("%s: %v, want AccessDenied naming the sub claim %q", subject, err, subject)
		default:
			t.Logf("%s (audience %s) refused: %v", subject, c.audience, err)
		}
	}

	// Past the provider's client list, the trust policy's aud condition refuses the audience: the
	// provider is made again listing it too (moto has no AddClientIDToOpenIDConnectProvider; the
	// ARN is the URL's, so the stack's provider is the same one), then as it was.
	restore := withClientID(t, w, oidcProviderOf(t, w), otherAudience)
	err := assume("kube-system", "karpenter", otherAudience)
	restore()
	if err == nil || !strings.Contains(err.Error(), "AccessDenied") || !strings.Contains(err.Error(), ":aud ") {
		t.Errorf("a token for %s, which the OIDC provider lists too: %v, want AccessDenied naming the trust policy's aud condition", otherAudience, err)
	} else {
		t.Logf("audience %s past the provider's client list refused: %v", otherAudience, err)
	}

	// Without the OIDC provider of the token's issuer in the account, STS refuses the token.
	restore = withoutProvider(t, w, oidcProviderOf(t, w))
	err = assume("kube-system", "karpenter", lab.IRSADefaultAudience)
	restore()
	if err == nil || !strings.Contains(err.Error(), "InvalidIdentityToken") || !strings.Contains(err.Error(), "No OpenIDConnect provider found") {
		t.Errorf("the controller's token with no OIDC provider of its issuer: %v, want InvalidIdentityToken naming the missing provider", err)
	}

	// The controller's own token, its payload changed after signing.
	parts := strings.Split(accountToken(t, w, "kube-system", "karpenter", lab.IRSADefaultAudience), ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(payload), "system:serviceaccount:kube-system:karpenter", "system:serviceaccount:kube-system:karpenteR", 1)
	if forged == string(payload) {
		t.Fatalf("the controller's token does not carry its subject: %s", payload)
	}
	err = assumeWith(parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2])
	if err == nil || !strings.Contains(err.Error(), "InvalidIdentityToken") || !strings.Contains(err.Error(), "signature") {
		t.Errorf("a forged token (payload changed after signing): %v, want InvalidIdentityToken naming the signature", err)
	}
}

// withClientID makes the OIDC provider again with clientID added to its client list (same URL,
// thumbprints and tags), and returns what makes it again as it was.
func withClientID(t *testing.T, w *karpenterWorld, arn, clientID string) (restore func()) {
	t.Helper()
	p := readProvider(t, w, arn)
	p.remake(t, append(slices.Clone(p.ClientIDList), clientID))
	return func() { p.remake(t, p.ClientIDList) }
}

// withoutProvider deletes the OIDC provider, and returns what makes it again as it was.
func withoutProvider(t *testing.T, w *karpenterWorld, arn string) (restore func()) {
	t.Helper()
	p := readProvider(t, w, arn)
	p.delete(t)
	return func() { p.create(t, p.ClientIDList) }
}

// oidcProvider is an OIDC provider as moto holds it, with what makes it again.
type oidcProvider struct {
	*iam.GetOpenIDConnectProviderOutput
	arn string
	iam *iam.Client
}

func readProvider(t *testing.T, w *karpenterWorld, arn string) oidcProvider {
	t.Helper()
	iamc := iam.NewFromConfig(w.AWS)
	got, err := iamc.GetOpenIDConnectProvider(context.Background(), &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	return oidcProvider{GetOpenIDConnectProviderOutput: got, arn: arn, iam: iamc}
}

func (p oidcProvider) delete(t *testing.T) {
	t.Helper()
	if _, err := p.iam.DeleteOpenIDConnectProvider(context.Background(), &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(p.arn)}); err != nil {
		t.Fatal(err)
	}
}

// create makes the provider with clients (same URL, thumbprints and tags; the ARN is the URL's).
func (p oidcProvider) create(t *testing.T, clients []string) {
	t.Helper()
	url := aws.ToString(p.Url)
	if !strings.HasPrefix(url, "https://") {
		url = "https://" + url
	}
	out, err := p.iam.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{Url: aws.String(url),
		ClientIDList: clients, ThumbprintList: p.ThumbprintList, Tags: p.Tags})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(out.OpenIDConnectProviderArn) != p.arn {
		t.Fatalf("the OIDC provider made again is %s, not %s", aws.ToString(out.OpenIDConnectProviderArn), p.arn)
	}
}

func (p oidcProvider) remake(t *testing.T, clients []string) {
	t.Helper()
	p.delete(t)
	p.create(t, clients)
}

// oidcProviderOf is the ARN of the world's one IAM OIDC provider (the program's, for the cluster).
func oidcProviderOf(t *testing.T, w *karpenterWorld) string {
	t.Helper()
	out, err := iam.NewFromConfig(w.AWS).ListOpenIDConnectProviders(context.Background(), &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.OpenIDConnectProviderList) != 1 {
		t.Fatalf("%d OIDC providers in moto, want the program's one", len(out.OpenIDConnectProviderList))
	}
	return aws.ToString(out.OpenIDConnectProviderList[0].Arn)
}

// accountToken is a token of the API server for the service account (created for the test, and
// deleted when it ends, if it does not exist) for audience.
func accountToken(t *testing.T, w *karpenterWorld, namespace, account, audience string) string {
	t.Helper()
	ctx := context.Background()
	accounts := w.cs.CoreV1().ServiceAccounts(namespace)
	_, err := accounts.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{})
	switch {
	case err == nil:
		t.Cleanup(func() { _ = accounts.Delete(context.Background(), account, metav1.DeleteOptions{}) })
	case !apierrors.IsAlreadyExists(err):
		t.Fatal(err)
	}
	seconds := int64(600)
	tok, err := accounts.CreateToken(ctx, account, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences: []string{audience}, ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Status.Token
}

// biteRBAC: without the rule of the chart's ClusterRole that lets the controller create
// NodeClaims, pending pods get no node and the controller's requests are refused — the check
// names the verb and the resource. The rule is put back afterwards and the controller recovers.
func biteRBAC(t *testing.T, w *karpenterWorld) {
	t.Helper()
	ctx := context.Background()
	roles := w.cs.RbacV1().ClusterRoles()
	list, err := roles.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var saved *rbacv1.ClusterRole
	var cut int
	for i := range list.Items {
		for j, r := range list.Items[i].Rules {
			if slices.Contains(r.APIGroups, "karpenter.sh") && slices.Contains(r.Resources, "nodeclaims") && slices.Contains(r.Verbs, "create") {
				saved, cut = list.Items[i].DeepCopy(), j
			}
		}
	}
	if saved == nil {
		t.Fatal("no ClusterRole of the chart lets the controller create NodeClaims")
	}
	role := saved.DeepCopy()
	role.Rules = slices.Delete(role.Rules, cut, cut+1)
	if _, err := roles.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("removed rule %d of ClusterRole %s: %v", cut, saved.Name, saved.Rules[cut])
	w.scale(t, 2)
	want := "system:serviceaccount:kube-system:karpenter cannot create nodeclaims.karpenter.sh"
	eventually(t, 2*time.Minute, "the controller refused creating a NodeClaim", func() error {
		got, err := w.karpenter.Forbidden()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, want) {
			return fmt.Errorf("refused so far: %v", got)
		}
		return nil
	})
	if c := w.claims(t); len(c) > 0 {
		t.Errorf("NodeClaims made without the rule: %v", c)
	}
	current, err := roles.Get(ctx, saved.Name, metav1.GetOptions{})
	if err == nil {
		current.Rules = saved.Rules
		_, err = roles.Update(ctx, current, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(errors.Join(errors.New("putting the rule back"), err))
	}
}

// TestKarpenterPodIdentity is the controller on EKS Pod Identity (controllerIdentity: podIdentity,
// the agent add-on created by the component): it gets its credentials from the node's agent for
// its service account's association (EKS Auth's checks: the token, the add-on, the association,
// the role's trust policy for pods.eks.amazonaws.com with the session tags), resolves a
// Bottlerocket node class (bottlerocket@latest through SSM) and launches a node, whose user data
// carries the cluster, the class's kubelet setting and the user's TOML settings; every call it
// made is signed with those credentials and allowed by its policies. Bites: a service account without an association gets no credentials, and the
// trust policy without sts:TagSession refuses the session tags.
func TestKarpenterPodIdentity(t *testing.T) {
	t.Parallel()
	w := newKarpenterWorld(t)
	// A Bottlerocket class, resolved through its SSM parameter, with its own kubelet setting and
	// user data (TOML settings), which must reach what the node boots with.
	const maxPods = 29
	nodeClass := fmt.Sprintf("    kubelet:\n      maxPods: %d\n    userData: |\n      [settings.host-containers.admin]\n      enabled = true\n", maxPods)
	w.stack(w.loop.InputsWithImage("    amiAlias: bottlerocket@latest\n", nodeClass) + "controllerIdentity: podIdentity\ncreatePodIdentityAgent: true\n")
	var role, cluster string

	t.Run("up: the controller gets its credentials through the Pod Identity agent and launches a node", func(t *testing.T) {
		w.up(t)
		out := w.outputs(t)
		role = str(out["controllerRoleArn"])
		eventually(t, time.Minute, "the controller process", func() error {
			if !w.karpenter.Running() {
				return fmt.Errorf("not running: %v", w.karpenter.History())
			}
			return nil
		})
		env := w.karpenter.Env()
		if env["AWS_CONTAINER_CREDENTIALS_FULL_URI"] == "" || env["AWS_ROLE_ARN"] != "" || env["AWS_ACCESS_KEY_ID"] != "" {
			t.Errorf("the controller's AWS identity: AWS_CONTAINER_CREDENTIALS_FULL_URI=%q AWS_ROLE_ARN=%q AWS_ACCESS_KEY_ID=%q, want Pod Identity only",
				env["AWS_CONTAINER_CREDENTIALS_FULL_URI"], env["AWS_ROLE_ARN"], env["AWS_ACCESS_KEY_ID"])
		}
		w.scale(t, 1)
		node := w.workloadOn(t, 1, 3*time.Minute)
		cluster = str(out["clusterName"])
		checkBottlerocketBoot(t, w, node, expectedNodeBoot(t, w, cluster, maxPods, ""))
	})
	if t.Failed() {
		return
	}

	t.Run("every AWS call is the role's and allowed by its policies", func(t *testing.T) {
		calls := w.recorder.Calls()
		checkControllerSessions(t, calls, role)
		for _, m := range func() []string {
			msgs, _, _ := denials(t, calls, role, controllerPolicies(t, w.world, role))
			return msgs
		}() {
			t.Error(m)
		}
	})

	t.Run("bites: no association, no credentials; without sts:TagSession the trust policy refuses", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, w.karpenter.Env()["AWS_CONTAINER_CREDENTIALS_FULL_URI"], nil)
		req.Header.Set("Authorization", accountToken(t, w, "kube-system", "not-karpenter", lab.PodIdentityAudience))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || !strings.Contains(string(body), "kube-system/not-karpenter") {
			t.Errorf("the agent answered a service account without an association %d %s, want a refusal naming it", resp.StatusCode, body)
		} else {
			t.Logf("kube-system/not-karpenter refused: %d %s", resp.StatusCode, body)
		}

		trust := w.aws(t).Role(role[strings.LastIndex(role, "/")+1:]).AssumeRolePolicy
		tags := map[string]string{"kubernetes-namespace": "kube-system", "kubernetes-service-account": "karpenter"}
		if why, err := lab.EvaluatePodIdentityTrust(trust, role, tags); err != nil || why != "" {
			t.Fatalf("the component's trust policy: %q %v, want it to allow (the bite below would prove nothing)", why, err)
		}
		cut := strings.Replace(trust, `"sts:TagSession"`, `"sts:GetCallerIdentity"`, 1)
		if cut == trust {
			t.Fatalf("no sts:TagSession in the trust policy %s", trust)
		}
		why, err := lab.EvaluatePodIdentityTrust(cut, role, tags)
		if err != nil || !strings.Contains(why, "sts:TagSession of "+role) || strings.Contains(why, "sts:AssumeRole of") {
			t.Errorf("without sts:TagSession: %q %v, want sts:TagSession refused and sts:AssumeRole allowed", why, err)
		} else {
			t.Logf("without sts:TagSession: %s", why)
		}
	})
}
