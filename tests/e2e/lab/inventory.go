package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// AWSInventory is what moto (and the aws stand-in's EKS record) holds, read with the AWS SDK
// directly — not through the stand-in — so the scenarios check the emulated account itself.
type AWSInventory struct {
	Roles            []Role
	Policies         []Policy // customer-managed (Scope=Local)
	InstanceProfiles []InstanceProfile
	OIDCProviders    []string // ARNs
	Queues           []Queue
	Rules            []Rule   // on the default event bus
	Clusters         []string // EKS clusters (moto's EKS)
	// The EKS objects moto lacks, from the aws stand-in's record ($STANDIN_STATE_DIR/aws-eks.json),
	// by id: access entries `<cluster>:<principal>`, access policy associations
	// `<cluster>#<principal>#<policy>`, add-ons `<cluster>:<name>`.
	AccessEntries, AccessPolicyAssociations, Addons, PodIdentityAssociations []string
}

type Role struct {
	Name, Arn, RoleID, Path string
	AssumeRolePolicy        string   // the trust document (decoded JSON)
	AttachedPolicyArns      []string // sorted
	Tags                    map[string]string
}

type Policy struct {
	Name, Arn, DefaultVersion string
	Document                  string // the default version's document (decoded JSON)
	Versions                  int
	AttachmentCount           int32
}

type InstanceProfile struct {
	Name, Arn string
	Roles     []string
}

type Queue struct {
	Name, URL  string
	Attributes map[string]string // every attribute (Policy, MessageRetentionPeriod, SqsManagedSseEnabled, ...)
}

type Rule struct {
	Name, Arn, EventPattern, State string
	Targets                        []Target
}

type Target struct{ ID, Arn string }

// Leftovers names everything moto and the stand-in's record hold (after a destroy: what was left),
// but service-linked roles: account-wide, created by AWS services or by the world for an account
// that has used Spot, and kept by the component on destroy (README, Spot service-linked role).
func (inv *AWSInventory) Leftovers() []string {
	var out []string
	for _, r := range inv.Roles {
		if strings.HasPrefix(r.Path, "/aws-service-role/") {
			continue
		}
		out = append(out, "IAM role "+r.Name)
	}
	for _, c := range inv.Clusters {
		out = append(out, "EKS cluster "+c)
	}
	for _, p := range inv.Policies {
		out = append(out, "IAM policy "+p.Name)
	}
	for _, p := range inv.InstanceProfiles {
		out = append(out, "instance profile "+p.Name)
	}
	for _, p := range inv.OIDCProviders {
		out = append(out, "OIDC provider "+p)
	}
	for _, q := range inv.Queues {
		out = append(out, "SQS queue "+q.Name)
	}
	for _, r := range inv.Rules {
		out = append(out, "EventBridge rule "+r.Name)
	}
	for _, e := range inv.AccessEntries {
		out = append(out, "EKS access entry "+e+" (stand-in record)")
	}
	for _, e := range inv.AccessPolicyAssociations {
		out = append(out, "EKS access policy association "+e+" (stand-in record)")
	}
	for _, e := range inv.Addons {
		out = append(out, "EKS add-on "+e+" (stand-in record)")
	}
	for _, e := range inv.PodIdentityAssociations {
		out = append(out, "EKS pod identity association "+e+" (stand-in record)")
	}
	return out
}

// Role returns the role named name (nil if absent).
func (inv *AWSInventory) Role(name string) *Role {
	for i := range inv.Roles {
		if inv.Roles[i].Name == name {
			return &inv.Roles[i]
		}
	}
	return nil
}

// Policy returns the customer-managed policy with that ARN (nil if absent).
func (inv *AWSInventory) Policy(arn string) *Policy {
	for i := range inv.Policies {
		if inv.Policies[i].Arn == arn {
			return &inv.Policies[i]
		}
	}
	return nil
}

// ReadAWS lists moto's account: roles with their attached policies, customer-managed policies
// with their default document, instance profiles, OIDC providers, queues with their attributes,
// rules with their targets; and the aws stand-in's EKS record in stateDir.
func ReadAWS(ctx context.Context, cfg aws.Config, stateDir string) (*AWSInventory, error) {
	inv := &AWSInventory{}
	cl := iam.NewFromConfig(cfg)

	roles, err := cl.ListRoles(ctx, &iam.ListRolesInput{MaxItems: aws.Int32(1000)})
	if err != nil {
		return nil, fmt.Errorf("ListRoles: %w", err)
	}
	for _, r := range roles.Roles {
		role := Role{Name: aws.ToString(r.RoleName), Arn: aws.ToString(r.Arn), RoleID: aws.ToString(r.RoleId),
			Path: aws.ToString(r.Path), AssumeRolePolicy: unescape(aws.ToString(r.AssumeRolePolicyDocument)), Tags: map[string]string{}}
		att, err := cl.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: r.RoleName, MaxItems: aws.Int32(1000)})
		if err != nil {
			return nil, fmt.Errorf("ListAttachedRolePolicies %s: %w", role.Name, err)
		}
		for _, p := range att.AttachedPolicies {
			role.AttachedPolicyArns = append(role.AttachedPolicyArns, aws.ToString(p.PolicyArn))
		}
		sort.Strings(role.AttachedPolicyArns)
		tags, err := cl.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: r.RoleName})
		if err != nil {
			return nil, fmt.Errorf("ListRoleTags %s: %w", role.Name, err)
		}
		for _, t := range tags.Tags {
			role.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		inv.Roles = append(inv.Roles, role)
	}
	sort.Slice(inv.Roles, func(i, j int) bool { return inv.Roles[i].Name < inv.Roles[j].Name })

	policies, err := cl.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: iamtypes.PolicyScopeTypeLocal, MaxItems: aws.Int32(1000)})
	if err != nil {
		return nil, fmt.Errorf("ListPolicies: %w", err)
	}
	for _, p := range policies.Policies {
		pol := Policy{Name: aws.ToString(p.PolicyName), Arn: aws.ToString(p.Arn), DefaultVersion: aws.ToString(p.DefaultVersionId),
			AttachmentCount: aws.ToInt32(p.AttachmentCount)}
		v, err := cl.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: p.Arn, VersionId: p.DefaultVersionId})
		if err != nil {
			return nil, fmt.Errorf("GetPolicyVersion %s: %w", pol.Name, err)
		}
		pol.Document = unescape(aws.ToString(v.PolicyVersion.Document))
		vs, err := cl.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: p.Arn})
		if err != nil {
			return nil, fmt.Errorf("ListPolicyVersions %s: %w", pol.Name, err)
		}
		pol.Versions = len(vs.Versions)
		inv.Policies = append(inv.Policies, pol)
	}
	sort.Slice(inv.Policies, func(i, j int) bool { return inv.Policies[i].Name < inv.Policies[j].Name })

	profiles, err := cl.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{MaxItems: aws.Int32(1000)})
	if err != nil {
		return nil, fmt.Errorf("ListInstanceProfiles: %w", err)
	}
	for _, p := range profiles.InstanceProfiles {
		ip := InstanceProfile{Name: aws.ToString(p.InstanceProfileName), Arn: aws.ToString(p.Arn)}
		for _, r := range p.Roles {
			ip.Roles = append(ip.Roles, aws.ToString(r.RoleName))
		}
		inv.InstanceProfiles = append(inv.InstanceProfiles, ip)
	}
	oidc, err := cl.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		return nil, fmt.Errorf("ListOpenIDConnectProviders: %w", err)
	}
	for _, p := range oidc.OpenIDConnectProviderList {
		inv.OIDCProviders = append(inv.OIDCProviders, aws.ToString(p.Arn))
	}
	sort.Strings(inv.OIDCProviders)

	sq := sqs.NewFromConfig(cfg)
	queues, err := sq.ListQueues(ctx, &sqs.ListQueuesInput{})
	if err != nil {
		return nil, fmt.Errorf("ListQueues: %w", err)
	}
	for _, u := range queues.QueueUrls {
		attrs, err := sq.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		if err != nil {
			return nil, fmt.Errorf("GetQueueAttributes %s: %w", u, err)
		}
		inv.Queues = append(inv.Queues, Queue{Name: u[strings.LastIndex(u, "/")+1:], URL: u, Attributes: attrs.Attributes})
	}
	sort.Slice(inv.Queues, func(i, j int) bool { return inv.Queues[i].Name < inv.Queues[j].Name })

	eb := eventbridge.NewFromConfig(cfg)
	rules, err := eb.ListRules(ctx, &eventbridge.ListRulesInput{})
	if err != nil {
		return nil, fmt.Errorf("ListRules: %w", err)
	}
	for _, r := range rules.Rules {
		rule := Rule{Name: aws.ToString(r.Name), Arn: aws.ToString(r.Arn), EventPattern: aws.ToString(r.EventPattern), State: string(r.State)}
		ts, err := eb.ListTargetsByRule(ctx, &eventbridge.ListTargetsByRuleInput{Rule: r.Name})
		if err != nil {
			return nil, fmt.Errorf("ListTargetsByRule %s: %w", rule.Name, err)
		}
		for _, t := range ts.Targets {
			rule.Targets = append(rule.Targets, Target{ID: aws.ToString(t.Id), Arn: aws.ToString(t.Arn)})
		}
		inv.Rules = append(inv.Rules, rule)
	}
	sort.Slice(inv.Rules, func(i, j int) bool { return inv.Rules[i].Name < inv.Rules[j].Name })

	clusters, err := eks.NewFromConfig(cfg).ListClusters(ctx, &eks.ListClustersInput{})
	if err != nil {
		return nil, fmt.Errorf("ListClusters: %w", err)
	}
	inv.Clusters = clusters.Clusters
	sort.Strings(inv.Clusters)

	// The stand-in's EKS record (what moto lacks); absent until the stand-in first writes it.
	data, err := os.ReadFile(filepath.Join(stateDir, "aws-eks.json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		var rec struct {
			AccessEntries           map[string]any `json:"accessEntries"`
			AccessPolicies          map[string]any `json:"accessPolicyAssociations"`
			Addons                  map[string]any `json:"addons"`
			PodIdentityAssociations map[string]any `json:"podIdentityAssociations"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("the aws stand-in's EKS record: %w", err)
		}
		inv.AccessEntries, inv.AccessPolicyAssociations = keys(rec.AccessEntries), keys(rec.AccessPolicies)
		inv.Addons, inv.PodIdentityAssociations = keys(rec.Addons), keys(rec.PodIdentityAssociations)
	}
	return inv, nil
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unescape decodes a policy document as IAM returns it (URL-encoded JSON).
func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// KubeObject names one object of the API server: "<resource>.<group> <namespace>/<name>".
type KubeObject string

// SnapshotKubernetes lists every object of every listable resource type the API server serves
// (events and leases excluded: the API server writes them itself), as a set. Taken at the start
// and after a destroy, the difference is what the run left behind.
func SnapshotKubernetes(ctx context.Context, cfg *rest.Config) (map[KubeObject]bool, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // "v1 Endpoints is deprecated" & co.: listing them all is the point
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		return nil, err
	}
	out := map[KubeObject]bool{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !hasVerb(r.Verbs, "list") || r.Name == "events" || r.Name == "leases" {
				continue
			}
			gvr := gv.WithResource(r.Name)
			objs, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", gvr, err)
			}
			for _, o := range objs.Items {
				name := o.GetName()
				if ns := o.GetNamespace(); ns != "" {
					name = ns + "/" + name
				}
				res := r.Name
				if gv.Group != "" {
					res += "." + gv.Group
				}
				out[KubeObject(res+" "+name)] = true
			}
		}
	}
	return out, nil
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

// NewObjects are the objects of after that before does not have, sorted.
func NewObjects(before, after map[KubeObject]bool) []string {
	var out []string
	for o := range after {
		if !before[o] {
			out = append(out, string(o))
		}
	}
	sort.Strings(out)
	return out
}
