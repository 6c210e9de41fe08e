//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

const (
	tAssociation = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
	tAccessEntry = "aws:eks/accessEntry:AccessEntry"
	tAddon       = "aws:eks/addon:Addon"
	tPodIdentity = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
)

// TestEKSRecord: access entries, add-ons and pod identity associations live in the stand-in's
// record, persisted across plugin processes (each `pulumi` command starts a new one).
func TestEKSRecord(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	role := p.create(t, tRole, "node", pmap{"name": sv(unique(t, "node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	roleArn := str(role.outputs, "arn")
	// The cluster they belong to (EKS refuses them on a cluster it does not have).
	cluster := createTestCluster(t, p, "prod-eu", pmap{"name": sv(unique(t, "prod-eu")),
		"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API_AND_CONFIG_MAP")})}).id

	entry := p.create(t, tAccessEntry, "node-access", pmap{
		"clusterName": sv(cluster), "principalArn": sv(roleArn), "type": sv("EC2_LINUX"),
		"tags": mapValue(map[string]string{"team": "platform"}),
	})
	if entry.id != cluster+":"+roleArn {
		t.Errorf("access entry id %q, want terraform's <cluster>:<principal>", entry.id)
	}
	if str(entry.outputs, "userName") != "system:node:{{EC2PrivateDNSName}}" || !strings.HasPrefix(str(entry.outputs, "accessEntryArn"), "arn:aws:eks:"+testRegion+":"+testAccount+":access-entry/"+cluster+"/role/") {
		t.Errorf("access entry outputs %v", entry.outputs)
	}

	// A new plugin process (the next `pulumi` command) reads the record from STANDIN_STATE_DIR.
	next := newPlugin(t, env)
	if resp, outs, _ := next.read(t, entry); resp.GetId() != entry.id || str(outs, "type") != "EC2_LINUX" {
		t.Fatalf("the next plugin process reads id %q outputs %v", resp.GetId(), outs)
	}
	data, err := os.ReadFile(filepath.Join(env.stateDir, "aws-eks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec eksRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.AccessEntries[entry.id] == nil {
		t.Fatalf("record file: %v %s", err, data)
	}

	// Updates in place; the principal and type are create-only.
	news := entry.inputs.Copy()
	news["kubernetesGroups"] = listValue([]string{"ops"})
	entry = next.update(t, entry, news)
	if got := stringList(entry.outputs, "kubernetesGroups"); len(got) != 1 || got[0] != "ops" {
		t.Errorf("kubernetesGroups after update %v", got)
	}
	news["type"] = sv("STANDARD")
	if d := next.diff(t, entry, next.check(t, tAccessEntry, "node-access", news, entry.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "type" {
		t.Errorf("type change: %v", d.GetReplaces())
	}

	// EKS refuses an access entry for a principal that does not exist; the stand-in asks moto.
	if _, err := next.tryCreate(t, tAccessEntry, "ghost", pmap{"clusterName": sv(cluster), "principalArn": sv("arn:aws:iam::" + testAccount + ":role/does-not-exist")}); err == nil || !strings.Contains(err.Error(), "invalid principal") {
		t.Errorf("access entry for a missing role: %v", err)
	}

	// Add-on, and the getAddon invoke that reads the record.
	if _, err := next.invoke(t, "aws:eks/getAddon:getAddon", pmap{"clusterName": sv(cluster), "addonName": sv("eks-pod-identity-agent")}); err == nil || !strings.Contains(err.Error(), "ResourceNotFoundException") {
		t.Errorf("getAddon before the add-on exists: %v", err)
	}
	addon := next.create(t, tAddon, "pod-identity-agent", pmap{"clusterName": sv(cluster), "addonName": sv("eks-pod-identity-agent")})
	if addon.id != cluster+":eks-pod-identity-agent" || str(addon.outputs, "addonVersion") != standInAddonVersion {
		t.Errorf("add-on id %q outputs %v", addon.id, addon.outputs)
	}
	got, err := newPlugin(t, env).invoke(t, "aws:eks/getAddon:getAddon", pmap{"clusterName": sv(cluster), "addonName": sv("eks-pod-identity-agent")})
	if err != nil || str(got, "addonVersion") != standInAddonVersion || str(got, "arn") != str(addon.outputs, "arn") {
		t.Errorf("getAddon = %v, %v", got, err)
	}
	ain := addon.inputs.Copy()
	ain["configurationValues"] = sv(`{"a":1}`)
	addon = next.update(t, addon, ain)
	if str(addon.outputs, "configurationValues") != `{"a":1}` {
		t.Errorf("configurationValues %q", str(addon.outputs, "configurationValues"))
	}

	// Pod identity association.
	ctl := next.create(t, tRole, "ctl", pmap{"name": sv(unique(t, "ctl")), "assumeRolePolicy": sv(trust("pods.eks.amazonaws.com"))})
	ctl2 := next.create(t, tRole, "ctl2", pmap{"name": sv(unique(t, "ctl2")), "assumeRolePolicy": sv(trust("pods.eks.amazonaws.com"))})
	pia := next.create(t, tPodIdentity, "pod-identity", pmap{
		"clusterName": sv(cluster), "namespace": sv("kube-system"), "serviceAccount": sv("karpenter"), "roleArn": sv(str(ctl.outputs, "arn")),
	})
	if !strings.HasPrefix(pia.id, "a-") || str(pia.outputs, "associationId") != pia.id ||
		str(pia.outputs, "associationArn") != "arn:aws:eks:"+testRegion+":"+testAccount+":podidentityassociation/"+cluster+"/"+pia.id {
		t.Errorf("pod identity id %q outputs %v", pia.id, pia.outputs)
	}
	pin := pia.inputs.Copy()
	pin["roleArn"] = sv(str(ctl2.outputs, "arn"))
	pia = next.update(t, pia, pin)
	if str(pia.outputs, "roleArn") != str(ctl2.outputs, "arn") {
		t.Errorf("roleArn after update %q", str(pia.outputs, "roleArn"))
	}
	pin["serviceAccount"] = sv("other")
	if d := next.diff(t, pia, next.check(t, tPodIdentity, "pod-identity", pin, pia.inputs)); len(d.GetReplaces()) != 1 {
		t.Errorf("serviceAccount change: %v", d.GetReplaces())
	}

	last := newPlugin(t, env)
	for _, r := range []*res{pia, addon, entry} {
		last.delete(t, r)
		if resp, _, _ := last.read(t, r); resp.GetId() != "" {
			t.Errorf("%s still recorded after Delete", r.typ)
		}
	}
	for _, r := range []*res{ctl, ctl2, role} {
		last.delete(t, r)
	}
	// The operation log has the EKS operations like any other.
	var ops []string
	for _, l := range opLines(t, env) {
		if strings.HasPrefix(l[3], "aws:eks/") && l[3] != tCluster && l[2] != "Invoke" {
			ops = append(ops, l[2]+" "+l[4])
		}
	}
	want := "Create node-access Read node-access Update node-access Create pod-identity-agent Update pod-identity-agent " +
		"Create pod-identity Update pod-identity Delete pod-identity Read pod-identity Delete pod-identity-agent " +
		"Read pod-identity-agent Delete node-access Read node-access"
	if strings.Join(ops, " ") != want {
		t.Errorf("EKS operations logged:\n %s\nwant\n %s", strings.Join(ops, " "), want)
	}
}

// EKS Auto Mode's node access: an EC2 access entry with AmazonEKSAutoNodePolicy associated at
// cluster scope. EKS refuses the association on the other node entry types and without an entry.
func TestAccessPolicyAssociation(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	role := p.create(t, tRole, "auto-node", pmap{"name": sv(unique(t, "auto-node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	roleArn := str(role.outputs, "arn")
	cluster := createTestCluster(t, p, "prod-eu", pmap{"name": sv(unique(t, "prod-eu")),
		"accessConfig": resource.NewObjectProperty(pmap{"authenticationMode": sv("API")})}).id
	policy := "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
	association := func(principal string) pmap {
		return pmap{
			"clusterName": sv(cluster), "principalArn": sv(principal), "policyArn": sv(policy),
			"accessScope": resource.NewObjectProperty(pmap{"type": sv("cluster")}),
		}
	}

	if _, err := p.tryCreate(t, tAssociation, "early", association(roleArn)); err == nil || !strings.Contains(err.Error(), "no access entry") {
		t.Errorf("association without an access entry: %v", err)
	}
	entry := p.create(t, tAccessEntry, "auto-node-access", pmap{"clusterName": sv(cluster), "principalArn": sv(roleArn), "type": sv("EC2")})
	assoc := p.create(t, tAssociation, "auto-node-access-policy", association(roleArn))
	if assoc.id != cluster+"#"+roleArn+"#"+policy || str(assoc.outputs, "associatedAt") == "" {
		t.Errorf("association id %q outputs %v", assoc.id, assoc.outputs)
	}
	if resp, outs, _ := newPlugin(t, env).read(t, assoc); resp.GetId() != assoc.id || str(outs.Copy()["accessScope"].ObjectValue(), "type") != "cluster" {
		t.Errorf("association read back: %q %v", resp.GetId(), outs)
	}
	// Every input is create-only.
	news := assoc.inputs.Copy()
	news["accessScope"] = resource.NewObjectProperty(pmap{"type": sv("namespace")})
	if d := p.diff(t, assoc, p.check(t, tAssociation, "auto-node-access-policy", news, assoc.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "accessScope" {
		t.Errorf("accessScope change: %v", d.GetReplaces())
	}

	// A self-managed node entry (EC2_LINUX) takes no association.
	linux := p.create(t, tRole, "linux-node", pmap{"name": sv(unique(t, "linux-node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	linuxEntry := p.create(t, tAccessEntry, "linux-node-access", pmap{"clusterName": sv(cluster), "principalArn": sv(str(linux.outputs, "arn")), "type": sv("EC2_LINUX")})
	if _, err := p.tryCreate(t, tAssociation, "linux-policy", association(str(linux.outputs, "arn"))); err == nil || !strings.Contains(err.Error(), `type of "STANDARD"`) {
		t.Errorf("association on an EC2_LINUX entry: %v", err)
	}

	for _, r := range []*res{assoc, entry, linuxEntry, role, linux} {
		p.delete(t, r)
	}
	if resp, _, _ := p.read(t, assoc); resp.GetId() != "" {
		t.Error("association still recorded after Delete")
	}
}

// TestAccessEntryRefusals: EKS refuses an access entry (and an access policy association, an
// add-on, a pod identity association) on a cluster it does not have, and an access entry on a
// cluster whose authentication mode is CONFIG_MAP — with its words after terraform's.
func TestAccessEntryRefusals(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	role := p.create(t, tRole, "node", pmap{"name": sv(unique(t, "node")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	t.Cleanup(func() { _ = p.tryDelete(role) })
	roleArn := str(role.outputs, "arn")
	const awsErr = `operation error EKS: %s, https response error StatusCode: %d, RequestID: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}, `
	refused := func(typ string, in pmap, want string) {
		t.Helper()
		if _, err := p.tryCreate(t, typ, "refused", in); !regexp.MustCompile(want).MatchString(errText(err)) {
			t.Errorf("%s: %v, want an error matching %q", typ, err, want)
		}
	}
	ghost := unique(t, "ghost")
	refused(tAccessEntry, pmap{"clusterName": sv(ghost), "principalArn": sv(roleArn)},
		`^creating EKS Access Entry \(`+ghost+`:`+regexp.QuoteMeta(roleArn)+`\): `+fmt.Sprintf(awsErr, "CreateAccessEntry", 404)+
			`ResourceNotFoundException: No cluster found for name: `+ghost+`\.$`)
	refused(tAssociation, pmap{"clusterName": sv(ghost), "principalArn": sv(roleArn), "policyArn": sv("arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"),
		"accessScope": resource.NewObjectProperty(pmap{"type": sv("cluster")})},
		`^creating EKS Access Policy Association \(`+ghost+`#.*\): `+fmt.Sprintf(awsErr, "AssociateAccessPolicy", 404)+`ResourceNotFoundException: No cluster found for name: `+ghost+`\.$`)
	refused(tAddon, pmap{"clusterName": sv(ghost), "addonName": sv("eks-pod-identity-agent")},
		`^creating EKS Add-On \(`+ghost+`:eks-pod-identity-agent\): `+fmt.Sprintf(awsErr, "CreateAddon", 404)+`ResourceNotFoundException: No cluster found for name: `+ghost+`\.$`)
	refused(tPodIdentity, pmap{"clusterName": sv(ghost), "namespace": sv("kube-system"), "serviceAccount": sv("karpenter"), "roleArn": sv(roleArn)},
		`^creating EKS Pod Identity Association: `+fmt.Sprintf(awsErr, "CreatePodIdentityAssociation", 404)+`ResourceNotFoundException: No cluster found for name: `+ghost+`\.$`)

	// A cluster created without an access configuration has EKS's default, CONFIG_MAP: no access
	// entries (nor associations); add-ons and pod identity associations are fine.
	cluster := createTestCluster(t, p, "aws-auth-only", nil).id
	refused(tAccessEntry, pmap{"clusterName": sv(cluster), "principalArn": sv(roleArn)},
		`^creating EKS Access Entry \(`+cluster+`:`+regexp.QuoteMeta(roleArn)+`\): `+fmt.Sprintf(awsErr, "CreateAccessEntry", 400)+
			`InvalidRequestException: The cluster's authentication mode must be set to one of \[API, API_AND_CONFIG_MAP\] to perform this operation\.$`)
	refused(tAssociation, pmap{"clusterName": sv(cluster), "principalArn": sv(roleArn), "policyArn": sv("arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"),
		"accessScope": resource.NewObjectProperty(pmap{"type": sv("cluster")})},
		`^creating EKS Access Policy Association \(.*\): `+fmt.Sprintf(awsErr, "AssociateAccessPolicy", 400)+`InvalidRequestException: The cluster's authentication mode must be set to one of \[API, API_AND_CONFIG_MAP\]`)
	addon := p.create(t, tAddon, "agent", pmap{"clusterName": sv(cluster), "addonName": sv("eks-pod-identity-agent")})
	p.delete(t, addon)

	// A cluster only moto knows (created through moto's API directly) exists, with the EKS API's
	// default authentication mode, CONFIG_MAP (moto drops the access configuration): no access
	// entries, as getCluster says.
	direct := unique(t, "direct")
	if _, err := moto().eks.CreateCluster(context.Background(), &eks.CreateClusterInput{
		Name: aws.String(direct), RoleArn: aws.String(roleArn), ResourcesVpcConfig: &ekstypes.VpcConfigRequest{},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = moto().eks.DeleteCluster(context.Background(), &eks.DeleteClusterInput{Name: aws.String(direct)})
	})
	refused(tAccessEntry, pmap{"clusterName": sv(direct), "principalArn": sv(roleArn), "type": sv("EC2_LINUX")},
		`InvalidRequestException: The cluster's authentication mode must be set to one of \[API, API_AND_CONFIG_MAP\]`)
	addon = p.create(t, tAddon, "direct-agent", pmap{"clusterName": sv(direct), "addonName": sv("eks-pod-identity-agent")})
	p.delete(t, addon)
}
