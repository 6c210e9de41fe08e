//go:build e2e

package e2e

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// checkDefaultAWS: what moto holds after `up` of the default install is what the component
// promises (README "One Karpenter resource creates").
func checkDefaultAWS(t *testing.T, w *world, out map[string]any) {
	t.Helper()
	inv := w.aws(t)
	cluster := str(out["clusterName"])
	if !slices.Contains(inv.Clusters, cluster) {
		t.Fatalf("stack output clusterName = %q, and moto's EKS holds %v", cluster, inv.Clusters)
	}
	if len(inv.OIDCProviders) != 1 {
		t.Fatalf("want the program's OIDC provider, moto holds %v", inv.OIDCProviders)
	}
	oidc := inv.OIDCProviders[0]
	issuer := oidc[strings.Index(oidc, ":oidc-provider/")+len(":oidc-provider/"):]

	// Roles: the program's cluster role, the controller's and the node's.
	if len(inv.Roles) != 3 {
		t.Errorf("want 3 roles (cluster, controller, node), moto holds %d", len(inv.Roles))
	}
	ctlArn, nodeArn := str(out["controllerRoleArn"]), str(out["nodeRoleArn"])
	ctl, node := inv.Role(ctlArn[strings.LastIndex(ctlArn, "/")+1:]), inv.Role(nodeArn[strings.LastIndex(nodeArn, "/")+1:])
	if ctl == nil || node == nil || ctl.Arn != ctlArn || node.Arn != nodeArn {
		t.Fatalf("the controller role %s and node role %s (stack outputs) are not both in moto: %+v", ctlArn, nodeArn, inv.Roles)
	}
	var trust struct {
		Statement []struct {
			Action    string
			Principal map[string]string
			Condition map[string]map[string]string
		}
	}
	if err := json.Unmarshal([]byte(ctl.AssumeRolePolicy), &trust); err != nil || len(trust.Statement) != 1 {
		t.Fatalf("controller trust policy: %v\n%s", err, ctl.AssumeRolePolicy)
	}
	st := trust.Statement[0]
	if st.Action != "sts:AssumeRoleWithWebIdentity" || st.Principal["Federated"] != oidc ||
		st.Condition["StringEquals"][issuer+":sub"] != "system:serviceaccount:kube-system:karpenter" ||
		st.Condition["StringEquals"][issuer+":aud"] != "sts.amazonaws.com" {
		t.Errorf("controller trust: want IRSA through %s for kube-system:karpenter, got %s", oidc, ctl.AssumeRolePolicy)
	}
	if !strings.Contains(node.AssumeRolePolicy, `"ec2.amazonaws.com"`) {
		t.Errorf("node trust: want ec2.amazonaws.com, got %s", node.AssumeRolePolicy)
	}

	// The six controller policies, exactly, attached to the controller role.
	wantPolicies := strs(out["controllerPolicyArns"])
	sort.Strings(wantPolicies)
	if len(wantPolicies) != 6 {
		t.Errorf("stack output controllerPolicyArns: want 6, got %v", wantPolicies)
	}
	if !reflect.DeepEqual(ctl.AttachedPolicyArns, wantPolicies) {
		t.Errorf("controller role's policies:\n got %v\nwant %v", ctl.AttachedPolicyArns, wantPolicies)
	}
	var local []string
	for _, p := range inv.Policies {
		local = append(local, p.Arn)
	}
	if !reflect.DeepEqual(local, wantPolicies) {
		t.Errorf("customer-managed policies in moto:\n got %v\nwant %v", local, wantPolicies)
	}
	suffixes := []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"}
	for _, s := range suffixes {
		found := false
		for _, p := range inv.Policies {
			if strings.HasPrefix(p.Name, "karpenter-controller-"+s+"-") {
				found = true
				if p.AttachmentCount != 1 {
					t.Errorf("%s: attached %d times, want once", p.Name, p.AttachmentCount)
				}
			}
		}
		if !found {
			t.Errorf("no karpenter-controller-%s policy in moto", s)
		}
	}
	queueName, queueArn := str(out["interruptionQueueName"]), str(out["interruptionQueueArn"])
	for _, p := range inv.Policies {
		switch {
		case strings.Contains(p.Name, "node-lifecycle"):
			// Scoped to this cluster by tag; 1.15's ec2:RebootInstances.
			if !strings.Contains(p.Document, "aws:ResourceTag/kubernetes.io/cluster/"+cluster) || !strings.Contains(p.Document, "ec2:RebootInstances") {
				t.Errorf("%s: want the cluster-name tag condition for %s and ec2:RebootInstances:\n%s", p.Name, cluster, p.Document)
			}
		case strings.Contains(p.Name, "interruption"):
			if !strings.Contains(p.Document, queueArn) {
				t.Errorf("%s: want the queue %s:\n%s", p.Name, queueArn, p.Document)
			}
		}
	}

	// The node role: the four AWS managed policies, an instance profile, an access entry.
	wantNode := []string{
		"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
		"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
		"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
		"arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
	}
	if !reflect.DeepEqual(node.AttachedPolicyArns, wantNode) {
		t.Errorf("node role's policies:\n got %v\nwant %v", node.AttachedPolicyArns, wantNode)
	}
	if len(inv.InstanceProfiles) != 1 || inv.InstanceProfiles[0].Name != str(out["instanceProfileName"]) ||
		!reflect.DeepEqual(inv.InstanceProfiles[0].Roles, []string{node.Name}) {
		t.Errorf("instance profiles: want %s holding %s, got %+v", out["instanceProfileName"], node.Name, inv.InstanceProfiles)
	}
	if want := []string{cluster + ":" + node.Arn}; !reflect.DeepEqual(inv.AccessEntries, want) {
		t.Errorf("EKS access entries (stand-in record): want %v, got %v", want, inv.AccessEntries)
	}

	// The queue (SSE, 300 s retention) and its policy; five rules, each targeting the queue.
	if len(inv.Queues) != 1 || inv.Queues[0].Name != queueName {
		t.Fatalf("want the queue %s, moto holds %+v", queueName, inv.Queues)
	}
	q := inv.Queues[0].Attributes
	if q["MessageRetentionPeriod"] != "300" || q["SqsManagedSseEnabled"] != "true" || q["QueueArn"] != queueArn {
		t.Errorf("queue attributes: %v", q)
	}
	var qp struct {
		Statement []struct {
			Effect    string
			Principal any
			Action    any
			Resource  string
		}
	}
	if err := json.Unmarshal([]byte(q["Policy"]), &qp); err != nil {
		t.Fatalf("queue policy: %v\n%s", err, q["Policy"])
	}
	var allowed, denied []string
	for _, s := range qp.Statement {
		b, _ := json.Marshal([]any{s.Principal, s.Action})
		switch {
		case s.Resource != queueArn:
		case s.Effect == "Allow":
			allowed = append(allowed, string(b))
		case s.Effect == "Deny":
			denied = append(denied, string(b))
		}
	}
	// EventBridge (and SQS) may send to the queue; plain HTTP is denied.
	if !reflect.DeepEqual(allowed, []string{`[{"Service":["events.amazonaws.com","sqs.amazonaws.com"]},"sqs:SendMessage"]`}) ||
		!reflect.DeepEqual(denied, []string{`["*","sqs:*"]`}) {
		t.Errorf("queue policy: allowed %s, denied %s:\n%s", allowed, denied, q["Policy"])
	}
	if len(inv.Rules) != 5 {
		t.Errorf("want 5 EventBridge rules, moto holds %d", len(inv.Rules))
	}
	var sources []string
	for _, r := range inv.Rules {
		if len(r.Targets) != 1 || r.Targets[0].Arn != queueArn || r.Targets[0].ID != "KarpenterInterruptionQueueTarget" {
			t.Errorf("rule %s: targets %+v, want the queue %s", r.Name, r.Targets, queueArn)
		}
		var pattern struct {
			Source     []string `json:"source"`
			DetailType []string `json:"detail-type"`
		}
		if err := json.Unmarshal([]byte(r.EventPattern), &pattern); err != nil {
			t.Errorf("rule %s: pattern %q: %v", r.Name, r.EventPattern, err)
		}
		sources = append(sources, strings.Join(pattern.Source, ",")+" "+strings.Join(pattern.DetailType, ","))
	}
	sort.Strings(sources)
	wantSources := []string{
		"aws.ec2 EC2 Capacity Reservation Instance Interruption Warning",
		"aws.ec2 EC2 Instance Rebalance Recommendation",
		"aws.ec2 EC2 Instance State-change Notification",
		"aws.ec2 EC2 Spot Instance Interruption Warning",
		"aws.health AWS Health Event",
	}
	if !reflect.DeepEqual(sources, wantSources) {
		t.Errorf("rule patterns:\n got %q\nwant %q", sources, wantSources)
	}
}
