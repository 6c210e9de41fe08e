package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// EKS Pod Identity (EKS User Guide, "Learn how EKS Pod Identity grants pods access to AWS
// services"): for a pod whose service account has a pod identity association, EKS's webhook
// injects AWS_CONTAINER_CREDENTIALS_FULL_URI (the node's Pod Identity agent,
// http://169.254.170.23/v1/credentials) and AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (a projected
// token for the audience pods.eks.amazonaws.com). The SDK sends the token to the agent, the agent
// to EKS Auth (AssumeRoleForPodIdentity), which checks it, finds the association of its namespace
// and service account, and assumes the association's role as the service principal
// pods.eks.amazonaws.com (sts:AssumeRole, sts:TagSession) with the session tags eks-cluster-arn,
// eks-cluster-name, kubernetes-namespace, kubernetes-service-account, kubernetes-pod-name,
// kubernetes-pod-uid — which the role's trust policy must allow. The agent runs only where the
// eks-pod-identity-agent add-on is installed. The recorder answers as that agent and EKS Auth
// (podIdentityAgent); the associations and add-ons are the aws stand-in's EKS record.

const (
	PodIdentityAudience  = "pods.eks.amazonaws.com"
	podIdentityPrincipal = "pods.eks.amazonaws.com"
	podIdentityAgentPath = "/v1/credentials"
	// podIdentityAgentPrefix: the recorder's agent of cluster <name> answers under
	// /pod-identity-agent/<name>/v1/credentials (a node's agent serves its own cluster).
	podIdentityAgentPrefix = "/pod-identity-agent/"
	podIdentityAddon       = "eks-pod-identity-agent"
)

// standInEKSRecord is the aws stand-in's EKS record in a world's state directory
// ($STANDIN_STATE_DIR/aws-eks.json).
func standInEKSRecord(stateDir string) string { return filepath.Join(stateDir, "aws-eks.json") }

// StandInEKS is the aws stand-in's EKS record, by table and id: what moto's EKS lacks.
type StandInEKS struct {
	Clusters map[string]struct {
		AuthenticationMode     string         `json:"authenticationMode"`
		Version                string         `json:"version"`
		ClusterSecurityGroupID string         `json:"clusterSecurityGroupId"`
		ComputeConfig          map[string]any `json:"computeConfig"`
	} `json:"clusters"`
	AccessEntries           map[string]map[string]any `json:"accessEntries"`
	AccessPolicies          map[string]map[string]any `json:"accessPolicyAssociations"`
	Addons                  map[string]map[string]any `json:"addons"`
	PodIdentityAssociations map[string]map[string]any `json:"podIdentityAssociations"`
}

// readStandInEKS reads the record at path (empty when there is none yet).
func readStandInEKS(path string) (StandInEKS, error) {
	var r StandInEKS
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return r, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	return r, err
}

// EKSRecord is the aws stand-in's EKS record of the world (empty when there is none yet).
func (w *World) EKSRecord() (StandInEKS, error) { return readStandInEKS(standInEKSRecord(w.StateDir)) }

// podIdentityRole is the role of the association of the service account in the cluster ("":
// none).
func (r StandInEKS) podIdentityRole(cluster, namespace, account string) string {
	for _, a := range r.PodIdentityAssociations {
		if a["clusterName"] == cluster && a["namespace"] == namespace && a["serviceAccount"] == account {
			s, _ := a["roleArn"].(string)
			return s
		}
	}
	return ""
}

func (r StandInEKS) hasAddon(cluster, name string) bool {
	for _, a := range r.Addons {
		if a["clusterName"] == cluster && a["addonName"] == name {
			return true
		}
	}
	return false
}

// podIdentityEnv is what EKS's webhook injects into the pod when its service account has an
// association in the cluster (nil: it has none), with the token written to tokenFile; the agent
// is the recorder's.
func podIdentityEnv(ctx context.Context, cs *kubernetes.Clientset, record, cluster, agentURL string, pod *corev1.Pod, tokenFile string, write func(path, content string) error) (map[string]string, error) {
	r, err := readStandInEKS(record)
	if err != nil {
		return nil, err
	}
	if r.podIdentityRole(cluster, pod.Namespace, pod.Spec.ServiceAccountName) == "" {
		return nil, nil
	}
	token, err := serviceAccountToken(ctx, cs, pod, []string{PodIdentityAudience}, irsaDefaultExpiration)
	if err != nil {
		return nil, err
	}
	if err := write(tokenFile, token); err != nil {
		return nil, err
	}
	return map[string]string{
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":     agentURL + podIdentityAgentPrefix + cluster + podIdentityAgentPath,
		"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": tokenFile,
		"AWS_REGION":                             Region,
		"AWS_DEFAULT_REGION":                     Region,
	}, nil
}

// podIdentityAgent answers the SDK's container credentials request as the node's agent and EKS
// Auth would, and records it as a call (eks-auth:AssumeRoleForPodIdentity, its verdict in Trust).
func (r *AWSRecorder) podIdentityAgent(w http.ResponseWriter, req *http.Request) {
	cluster := strings.TrimSuffix(strings.TrimPrefix(req.URL.Path, podIdentityAgentPrefix), podIdentityAgentPath)
	c := &AWSCall{Service: "eks-auth", Action: "AssumeRoleForPodIdentity", Params: url.Values{}}
	v, creds := r.assumeForPodIdentity(req.Context(), cluster, req.Header.Get("Authorization"))
	c.Trust = &v
	c.Params.Set("clusterName", cluster)
	status := http.StatusOK
	if v.Code != "" {
		status = http.StatusBadRequest
		if v.Code == "AccessDeniedException" {
			status = http.StatusForbidden
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"code": v.Code, "message": v.Message})
	} else {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{
			"AccessKeyId": aws.ToString(creds.AccessKeyId), "SecretAccessKey": aws.ToString(creds.SecretAccessKey),
			"Token": aws.ToString(creds.SessionToken), "Expiration": aws.ToTime(creds.Expiration).UTC().Format(time.RFC3339),
		})
	}
	c.Time, c.Status = time.Now(), status
	r.mu.Lock()
	r.log = append(r.log, *c)
	r.mu.Unlock()
}

// assumeForPodIdentity does EKS Auth's part: the token, the add-on, the association, the role's
// trust policy for pods.eks.amazonaws.com with the session tags; then moto's AssumeRole.
func (r *AWSRecorder) assumeForPodIdentity(ctx context.Context, cluster, token string) (TrustVerdict, *ststypes.Credentials) {
	v := TrustVerdict{Provider: podIdentityPrincipal}
	deny := func(code, format string, a ...any) (TrustVerdict, *ststypes.Credentials) {
		v.Code, v.Message = code, fmt.Sprintf(format, a...)
		return v, nil
	}
	record, err := readStandInEKS(r.eksRecord)
	if err != nil {
		return deny("ServerException", "the stand-in's EKS record: %v", err)
	}
	if !record.hasAddon(cluster, podIdentityAddon) {
		return deny("AgentNotInstalled", "no %s add-on on cluster %s: nothing answers on the node's Pod Identity agent address", podIdentityAddon, cluster)
	}
	claims, err := r.identity.token(ctx, token)
	v.Subject, v.Audience = claims.Subject, strings.Join(claims.Audiences, ",")
	switch {
	case errors.Is(err, errTokenExpired):
		return deny("ExpiredTokenException", "%v", err)
	case err != nil:
		return deny("InvalidTokenException", "The token is not valid: %v", err)
	case !anyIn(claims.Audiences, []string{PodIdentityAudience}):
		return deny("InvalidTokenException", "The token's audience %v is not %s", []string(claims.Audiences), PodIdentityAudience)
	}
	parts := strings.Split(claims.Subject, ":") // system:serviceaccount:<namespace>:<name>
	if len(parts) != 4 {
		return deny("InvalidTokenException", "The token's sub %q is not a service account's", claims.Subject)
	}
	namespace, account := parts[2], parts[3]
	v.Role = record.podIdentityRole(cluster, namespace, account)
	if v.Role == "" {
		return deny("ResourceNotFoundException", "No Pod Identity Association of cluster %s for service account %s/%s", cluster, namespace, account)
	}
	tags := map[string]string{
		"eks-cluster-arn":            fmt.Sprintf("arn:aws:eks:%s:%s:cluster/%s", Region, MotoAccount, cluster),
		"eks-cluster-name":           cluster,
		"kubernetes-namespace":       namespace,
		"kubernetes-service-account": account,
		"kubernetes-pod-name":        claims.Kubernetes.Pod.Name,
		"kubernetes-pod-uid":         claims.Kubernetes.Pod.UID,
	}
	doc, err := r.identity.trustPolicy(ctx, v.Role)
	if err != nil {
		return deny("AccessDeniedException", "%v", err)
	}
	if why, err := EvaluatePodIdentityTrust(doc, v.Role, tags); err != nil {
		return deny("ServerException", "evaluating the trust policy: %v", err)
	} else if why != "" {
		return deny("AccessDeniedException", "%s", why)
	}
	var stsTags []ststypes.Tag
	for _, k := range sortedKeys(tags) {
		stsTags = append(stsTags, ststypes.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	out, err := sts.NewFromConfig(r.moto.cfg).AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String(v.Role), RoleSessionName: aws.String("eks-" + cluster + "-" + claims.Kubernetes.Pod.Name), Tags: stsTags})
	if err != nil {
		return deny("ServerException", "moto's AssumeRole: %v", err)
	}
	r.mu.Lock()
	r.sessions[aws.ToString(out.Credentials.AccessKeyId)] = aws.ToString(out.AssumedRoleUser.Arn)
	r.mu.Unlock()
	return v, out.Credentials
}

// EvaluatePodIdentityTrust evaluates the role's trust policy for pods.eks.amazonaws.com's
// sts:AssumeRole and sts:TagSession with the session tags; "" when both are allowed, else which
// is not and why.
func EvaluatePodIdentityTrust(trust, role string, tags map[string]string) (string, error) {
	var policy map[string]any
	if err := json.Unmarshal([]byte(trust), &policy); err != nil {
		return "", err
	}
	ctx := tagContext(map[string]any{}, tags)
	var reqs []IAMRequest
	for i, action := range []string{"sts:AssumeRole", "sts:TagSession"} {
		reqs = append(reqs, IAMRequest{ID: i, Action: action, Resource: role, Context: ctx})
	}
	results, err := SimulateWithResourcePolicy(podIdentityPrincipal, nil, policy, reqs)
	if err != nil {
		return "", err
	}
	var why []string
	for _, r := range results {
		if r.Result == "Allowed" {
			continue
		}
		var failed []string
		for _, c := range r.Candidates {
			failed = append(failed, c.Statement+": "+c.Failed)
		}
		if len(failed) == 0 {
			failed = []string{"no statement of the trust policy names the action for " + podIdentityPrincipal}
		}
		why = append(why, fmt.Sprintf("%s of %s by %s is %s (%s)", reqs[r.ID].Action, role, podIdentityPrincipal, r.Result, strings.Join(failed, "; ")))
	}
	sort.Strings(why)
	return strings.Join(why, "; "), nil
}
