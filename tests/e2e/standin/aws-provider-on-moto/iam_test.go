//go:build e2e

package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const (
	tRole       = "aws:iam/role:Role"
	tPolicy     = "aws:iam/policy:Policy"
	tAttachment = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
	tProfile    = "aws:iam/instanceProfile:InstanceProfile"
	tSLR        = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
)

func getRole(t *testing.T, name string) (*iam.GetRoleOutput, error) {
	t.Helper()
	return moto().iam.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(name)})
}

func TestRoleLifecycle(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	name := unique(t, "node")

	r := p.create(t, tRole, "node", pmap{
		"name":             sv(name),
		"description":      sv("first"),
		"assumeRolePolicy": sv(trust("ec2.amazonaws.com")),
		"tags":             mapValue(map[string]string{"team": "a", "gone": "soon"}),
	})
	if r.id != name {
		t.Errorf("id = %q, want the role name %q", r.id, name)
	}
	for k, want := range map[string]string{
		"arn": "arn:aws:iam::" + testAccount + ":role/" + name, "name": name, "path": "/", "description": "first",
	} {
		if got := str(r.outputs, k); got != want {
			t.Errorf("output %s = %q, want %q", k, got, want)
		}
	}
	if str(r.outputs, "uniqueId") == "" || str(r.outputs, "createDate") == "" {
		t.Errorf("uniqueId/createDate missing: %v", r.outputs)
	}
	if got := stringMap(r.outputs, "tagsAll"); got["team"] != "a" {
		t.Errorf("tagsAll = %v", got)
	}
	got, err := getRole(t, name)
	if err != nil {
		t.Fatalf("the role is not in moto: %v", err)
	}
	if aws.ToString(got.Role.Description) != "first" {
		t.Errorf("moto description = %q", aws.ToString(got.Role.Description))
	}

	// The same inputs with the policy's keys reordered: no diff (policies compare as JSON).
	same := r.inputs.Copy()
	same["assumeRolePolicy"] = sv(`{"Statement":[{"Action":"sts:AssumeRole","Principal":{"Service":"ec2.amazonaws.com"},"Effect":"Allow"}],"Version":"2012-10-17"}`)
	if d := p.diff(t, r, p.check(t, tRole, "node", same, r.inputs)); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("reordered policy: want no diff, got %v", d.GetDiffs())
	}

	// description and assumeRolePolicy update in place.
	news := r.inputs.Copy()
	delete(news, defaultsKey)
	news["description"] = sv("second")
	news["assumeRolePolicy"] = sv(trust("pods.eks.amazonaws.com"))
	news["tags"] = mapValue(map[string]string{"team": "b", "new": "x"})
	d := p.diff(t, r, p.check(t, tRole, "node", news, r.inputs))
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Fatalf("description/assumeRolePolicy change: want an update, got %v replaces %v", d.GetDiffs(), d.GetReplaces())
	}
	if k := d.GetDetailedDiff()["description"].GetKind(); k != pulumirpc.PropertyDiff_UPDATE {
		t.Errorf("description diff kind = %v", k)
	}
	r = p.update(t, r, news)
	got, _ = getRole(t, name)
	doc, _ := url.QueryUnescape(aws.ToString(got.Role.AssumeRolePolicyDocument))
	if aws.ToString(got.Role.Description) != "second" || !strings.Contains(doc, "pods.eks.amazonaws.com") {
		t.Errorf("after update moto has description %q, trust %s", aws.ToString(got.Role.Description), doc)
	}
	if tags := fromIAMTags(got.Role.Tags); tags["team"] != "b" || tags["new"] != "x" || tags["gone"] != "" {
		t.Errorf("after update moto has tags %v", tags)
	}
	if str(r.outputs, "description") != "second" {
		t.Errorf("output description = %q", str(r.outputs, "description"))
	}

	// A name change replaces the role, deleting the old one first (the name was given).
	renamed := news.Copy()
	renamed["name"] = sv(name + "-2")
	d = p.diff(t, r, p.check(t, tRole, "node", renamed, r.inputs))
	if len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "name" || !d.GetDeleteBeforeReplace() {
		t.Errorf("name change: want replace [name] with deleteBeforeReplace, got %v (dbr %v)", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	if k := d.GetDetailedDiff()["name"].GetKind(); k != pulumirpc.PropertyDiff_UPDATE_REPLACE {
		t.Errorf("name diff kind = %v", k)
	}
	// path is create-only too.
	moved := news.Copy()
	moved["path"] = sv("/karpenter/")
	if d := p.diff(t, r, p.check(t, tRole, "node", moved, r.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "path" {
		t.Errorf("path change: want replace [path], got %v", d.GetReplaces())
	}

	// Refresh: a description changed outside Pulumi comes back as an input, so the next diff
	// shows it.
	if _, err := moto().iam.UpdateRoleDescription(context.Background(), &iam.UpdateRoleDescriptionInput{RoleName: aws.String(name), Description: aws.String("drifted")}); err != nil {
		t.Fatal(err)
	}
	resp, outs, ins := p.read(t, r)
	if resp.GetId() != name || str(outs, "description") != "drifted" || str(ins, "description") != "drifted" {
		t.Errorf("Read: id %q, description output %q input %q", resp.GetId(), str(outs, "description"), str(ins, "description"))
	}

	p.delete(t, r)
	if _, err := getRole(t, name); !isNotFound(err) {
		t.Errorf("the role is still in moto after Delete: %v", err)
	}
	p.delete(t, r) // deleting what is gone succeeds, as terraform's NoSuchEntity handling
	if resp, _, _ := p.read(t, r); resp.GetId() != "" {
		t.Errorf("Read of a deleted role: id %q, want empty (gone)", resp.GetId())
	}
}

func TestRoleAutoname(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	in := p.check(t, tRole, "controller", pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com"))}, nil)
	name := str(in, "name")
	if !strings.HasPrefix(name, "controller-") || len(name) != len("controller-")+7 {
		t.Fatalf("autonamed %q, want controller-<7 hex>", name)
	}
	if !defaulted(in, "name") {
		t.Errorf("__defaults does not list name: %v", in[defaultsKey])
	}
	// The same seed gives the same name; a later Check keeps the generated name.
	if again := p.check(t, tRole, "controller", pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com"))}, nil); str(again, "name") != name {
		t.Errorf("second Check named it %q, want %q", str(again, "name"), name)
	}
	resp, err := p.Check(context.Background(), &pulumirpc.CheckRequest{
		Urn: urnOf(tRole, "controller"), Name: "controller", RandomSeed: []byte("another seed"),
		News: mustMarshal(t, pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com"))}), Olds: mustMarshal(t, in),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := str(mustUnmarshal(t, resp.GetInputs()), "name"); got != name {
		t.Errorf("Check with the old inputs named it %q, want the old name %q", got, name)
	}
	// The engine's autonaming configuration wins.
	resp, err = p.Check(context.Background(), &pulumirpc.CheckRequest{
		Urn: urnOf(tRole, "controller"), Name: "controller", News: mustMarshal(t, pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com"))}),
		Autonaming: &pulumirpc.CheckRequest_AutonamingOptions{ProposedName: "proposed-name", Mode: pulumirpc.CheckRequest_AutonamingOptions_ENFORCE},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := str(mustUnmarshal(t, resp.GetInputs()), "name"); got != "proposed-name" {
		t.Errorf("with autonaming ENFORCE named it %q", got)
	}
	// An auto-named role is replaced create-before-delete (the names differ).
	r := p.create(t, tRole, "auto", pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com")), "path": sv("/a/")})
	t.Cleanup(func() { _ = p.tryDelete(r) })
	// (the program's inputs still carry no name: Check keeps the generated one)
	moved := pmap{"assumeRolePolicy": sv(trust("ec2.amazonaws.com")), "path": sv("/b/")}
	if d := p.diff(t, r, p.check(t, tRole, "auto", moved, r.inputs)); len(d.GetReplaces()) == 0 || d.GetDeleteBeforeReplace() {
		t.Errorf("auto-named path change: want create-before-delete replace, got %v dbr=%v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
}

// TestDeleteConflict: IAM refuses to delete a role that still has attached policies or sits
// in an instance profile, and a policy that is still attached; the stand-in surfaces that, so
// a destroy in the wrong order fails.
func TestDeleteConflict(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	role := p.create(t, tRole, "controller", pmap{"name": sv(unique(t, "ctl")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	policy := p.create(t, tPolicy, "controller-policy", pmap{
		"name":        sv(unique(t, "pol")),
		"description": sv("controller policy"),
		"policy":      sv(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`),
	})
	att := p.create(t, tAttachment, "controller-attach", pmap{"role": sv(str(role.outputs, "name")), "policyArn": sv(policy.id)})
	if !strings.HasPrefix(att.id, role.id+"-") || len(att.id) != len(role.id)+1+uniqueIDSuffixLength {
		t.Errorf("attachment id %q, want terraform's <role>-<26-char unique suffix>", att.id)
	}
	managed := p.create(t, tAttachment, "node-worker", pmap{"role": sv(role.id), "policyArn": sv("arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy")})

	err := p.tryDelete(role)
	if err == nil || !strings.Contains(err.Error(), "DeleteConflict") {
		t.Fatalf("deleting a role with attached policies: want DeleteConflict, got %v", err)
	}
	if _, err := getRole(t, role.id); err != nil {
		t.Errorf("the role is gone after the refused delete: %v", err)
	}
	err = p.tryDelete(policy)
	if err == nil || !strings.Contains(err.Error(), "DeleteConflict") {
		t.Fatalf("deleting an attached policy: want DeleteConflict, got %v", err)
	}

	// An instance profile holding the role blocks its deletion too.
	p.delete(t, att)
	p.delete(t, managed)
	profile := p.create(t, tProfile, "node-profile", pmap{"name": sv(unique(t, "prof")), "role": sv(role.id)})
	err = p.tryDelete(role)
	if err == nil || !strings.Contains(err.Error(), "DeleteConflict") {
		t.Fatalf("deleting a role in an instance profile: want DeleteConflict, got %v", err)
	}

	// The right order succeeds.
	p.delete(t, profile)
	p.delete(t, policy)
	p.delete(t, role)
	if _, err := getRole(t, role.id); !isNotFound(err) {
		t.Errorf("role still in moto: %v", err)
	}
	lines := opLines(t, p.env)
	var deletes []string
	for _, l := range lines {
		if l[2] == "Delete" {
			deletes = append(deletes, l[4])
		}
	}
	if want := "controller-attach node-worker node-profile controller-policy controller"; strings.Join(deletes, " ") != want {
		t.Errorf("logged deletes %v, want %s (refused deletes are not logged)", deletes, want)
	}
}

func TestPolicyVersions(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	doc := func(action string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"` + action + `","Resource":"*"}]}`
	}
	r := p.create(t, tPolicy, "pol", pmap{"name": sv(unique(t, "pol")), "policy": sv(doc("s3:GetObject"))})
	t.Cleanup(func() { _ = p.tryDelete(r) })
	if r.id != str(r.outputs, "arn") || !strings.HasPrefix(r.id, "arn:aws:iam::"+testAccount+":policy/") {
		t.Errorf("id %q, arn %q", r.id, str(r.outputs, "arn"))
	}
	// Seven updates: IAM keeps at most five versions; the stand-in prunes the oldest
	// non-default one, as terraform does.
	for i, a := range []string{"s3:A", "s3:B", "s3:C", "s3:D", "s3:E", "s3:F", "s3:G"} {
		news := r.inputs.Copy()
		news["policy"] = sv(doc(a))
		r = p.update(t, r, news)
		if str(r.outputs, "policy") != doc(a) {
			t.Fatalf("update %d: output policy %s", i, str(r.outputs, "policy"))
		}
	}
	versions, err := moto().iam.ListPolicyVersions(context.Background(), &iam.ListPolicyVersionsInput{PolicyArn: aws.String(r.id)})
	if err != nil {
		t.Fatal(err)
	}
	if len(versions.Versions) != 5 {
		t.Errorf("%d policy versions in moto, want 5", len(versions.Versions))
	}
	def, err := moto().iam.GetPolicy(context.Background(), &iam.GetPolicyInput{PolicyArn: aws.String(r.id)})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := moto().iam.GetPolicyVersion(context.Background(), &iam.GetPolicyVersionInput{PolicyArn: aws.String(r.id), VersionId: def.Policy.DefaultVersionId})
	if got := decodeDocument(v.PolicyVersion.Document); !jsonEquivalent(got, doc("s3:G")) {
		t.Errorf("default version is %s", got)
	}
	// description is create-only on a policy.
	news := r.inputs.Copy()
	news["description"] = sv("changed")
	if d := p.diff(t, r, p.check(t, tPolicy, "pol", news, r.inputs)); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "description" {
		t.Errorf("description change: want replace, got %v", d.GetReplaces())
	}
	p.delete(t, r) // deletes the non-default versions first
	if _, err := moto().iam.GetPolicy(context.Background(), &iam.GetPolicyInput{PolicyArn: aws.String(r.id)}); !isNotFound(err) {
		t.Errorf("policy still in moto: %v", err)
	}
}

func TestAttachmentReplaceAndRead(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	role := p.create(t, tRole, "r", pmap{"name": sv(unique(t, "r")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	att := p.create(t, tAttachment, "cni", pmap{"role": sv(role.id), "policyArn": sv("arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy")})
	news := att.inputs.Copy()
	news["policyArn"] = sv("arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly")
	if d := p.diff(t, att, p.check(t, tAttachment, "cni", news, att.inputs)); len(d.GetReplaces()) != 1 || d.GetDeleteBeforeReplace() {
		t.Errorf("policyArn change: want a create-before-delete replace, got %v dbr=%v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	// Detached outside Pulumi: Read reports it gone.
	if _, err := moto().iam.DetachRolePolicy(context.Background(), &iam.DetachRolePolicyInput{RoleName: aws.String(role.id), PolicyArn: aws.String("arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy")}); err != nil {
		t.Fatal(err)
	}
	if resp, _, _ := p.read(t, att); resp.GetId() != "" {
		t.Errorf("Read of a detached attachment: id %q, want gone", resp.GetId())
	}
	p.delete(t, att) // already detached: succeeds
	p.delete(t, role)
}

func TestInstanceProfileLifecycle(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	a := p.create(t, tRole, "a", pmap{"name": sv(unique(t, "a")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	b := p.create(t, tRole, "b", pmap{"name": sv(unique(t, "b")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	name := unique(t, "profile")
	prof := p.create(t, tProfile, "profile", pmap{"name": sv(name), "role": sv(a.id), "tags": mapValue(map[string]string{"k": "v"})})
	if str(prof.outputs, "role") != a.id || str(prof.outputs, "arn") != "arn:aws:iam::"+testAccount+":instance-profile/"+name {
		t.Errorf("outputs %v", prof.outputs)
	}
	out, err := p.invoke(t, "aws:iam/getInstanceProfile:getInstanceProfile", pmap{"name": sv(name)})
	if err != nil || str(out, "roleArn") != str(a.outputs, "arn") || str(out, "roleName") != a.id {
		t.Errorf("getInstanceProfile = %v, %v", out, err)
	}
	news := prof.inputs.Copy()
	news["role"] = sv(b.id)
	prof = p.update(t, prof, news)
	got, err := moto().iam.GetInstanceProfile(context.Background(), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
	if err != nil || len(got.InstanceProfile.Roles) != 1 || aws.ToString(got.InstanceProfile.Roles[0].RoleName) != b.id {
		t.Fatalf("after the role update moto has %+v, %v", got, err)
	}
	p.delete(t, a) // no longer in the profile
	p.delete(t, prof)
	p.delete(t, b)
	if _, err := p.invoke(t, "aws:iam/getInstanceProfile:getInstanceProfile", pmap{"name": sv(name)}); err == nil || !strings.Contains(err.Error(), "NoSuchEntity") {
		t.Errorf("getInstanceProfile of a deleted profile: %v", err)
	}
}

// TestInstanceProfileRoleAlreadyRemoved: a profile whose role someone else removed first (Karpenter,
// or an SDK retry of a removal moto had done) deletes cleanly, although moto answers the second
// RemoveRoleFromInstanceProfile with HTTP 500 instead of IAM's NoSuchEntity.
func TestInstanceProfileRoleAlreadyRemoved(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	role := p.create(t, tRole, "r", pmap{"name": sv(unique(t, "r")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	name := unique(t, "profile")
	prof := p.create(t, tProfile, "profile", pmap{"name": sv(name), "role": sv(role.id)})
	ctx := context.Background()
	in := &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(role.id)}
	if _, err := moto().iam.RemoveRoleFromInstanceProfile(ctx, in); err != nil {
		t.Fatal(err)
	}
	// What moto does with the repeated call the stand-in's delete makes.
	if _, err := moto().iam.RemoveRoleFromInstanceProfile(ctx, in, func(o *iam.Options) { o.RetryMaxAttempts = 1 }); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("moto's answer to removing a role no longer in the profile: %v (the stand-in's workaround expects HTTP 500)", err)
	}
	p.delete(t, prof)
	p.delete(t, role)
	if _, err := moto().iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)}); err == nil {
		t.Errorf("profile %s still exists", name)
	}
}

func TestServiceLinkedRole(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	r := p.create(t, tSLR, "spot", pmap{"awsServiceName": sv("spot.amazonaws.com"), "description": sv("spot"), "tags": mapValue(map[string]string{"a": "b"})})
	if !strings.Contains(r.id, ":role/aws-service-role/spot.amazonaws.com/") || str(r.outputs, "awsServiceName") != "spot.amazonaws.com" {
		t.Fatalf("id %q outputs %v", r.id, r.outputs)
	}
	if str(r.outputs, "name") == "" || str(r.outputs, "path") != "/aws-service-role/spot.amazonaws.com/" {
		t.Errorf("name %q path %q", str(r.outputs, "name"), str(r.outputs, "path"))
	}
	news := r.inputs.Copy()
	news["description"] = sv("updated")
	r = p.update(t, r, news)
	if str(r.outputs, "description") != "updated" {
		t.Errorf("description %q", str(r.outputs, "description"))
	}
	news["awsServiceName"] = sv("elasticbeanstalk.amazonaws.com")
	if d := p.diff(t, r, p.check(t, tSLR, "spot", news, r.inputs)); len(d.GetReplaces()) != 1 {
		t.Errorf("awsServiceName change: want replace, got %v", d.GetReplaces())
	}
	p.delete(t, r)
	if _, err := getRole(t, str(r.outputs, "name")); !isNotFound(err) {
		t.Errorf("service-linked role still in moto: %v", err)
	}
}

// TestOpenIDConnectProvider: the type the engine tests' programs declare (forPrograms). The ARN
// is unknown in a preview and is the id; thumbprints, client IDs and tags update in place (moto
// 5.2.5 implements the thumbprint and tag calls, not the client-ID ones), a new URL replaces it;
// Check refuses a URL that is not HTTPS.
func TestOpenIDConnectProvider(t *testing.T) {
	const tOIDC = "aws:iam/openIdConnectProvider:OpenIdConnectProvider"
	p := newPlugin(t, testSettings(t))
	issuer := "https://oidc.eks.us-west-2.amazonaws.com/id/" + strings.ToUpper(unique(t, "oidc"))
	in := pmap{"url": sv(issuer), "clientIdLists": listValue([]string{"sts.amazonaws.com"})}
	if preview := p.previewCreate(t, tOIDC, "oidc", in); !isUnknown(preview["arn"]) || !isUnknown(preview["id"]) {
		t.Errorf("preview of a create: arn and id should be unknown, got %v", preview)
	}
	r := p.create(t, tOIDC, "oidc", in)
	want := "arn:aws:iam::" + testAccount + ":oidc-provider/" + strings.TrimPrefix(issuer, "https://")
	if r.id != want || str(r.outputs, "arn") != want {
		t.Errorf("id %q, arn %q; want %q", r.id, str(r.outputs, "arn"), want)
	}
	cl := moto().iam
	got, err := cl.GetOpenIDConnectProvider(context.Background(), &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(r.id)})
	if err != nil || strings.Join(got.ClientIDList, ",") != "sts.amazonaws.com" {
		t.Fatalf("moto's provider: %+v, %v", got, err)
	}

	thumb := strings.Repeat("9", 40)
	more := pmap{"url": sv(issuer), "clientIdLists": listValue([]string{"sts.amazonaws.com"}),
		"thumbprintLists": listValue([]string{thumb}), "tags": mapValue(map[string]string{"team": "a"})}
	if d := p.diff(t, r, p.check(t, tOIDC, "oidc", more, r.inputs)); len(d.GetReplaces()) != 0 || len(d.GetDiffs()) != 2 {
		t.Errorf("thumbprints and tags: want an in-place update of both, got diffs %v replaces %v", d.GetDiffs(), d.GetReplaces())
	}
	other := pmap{"url": sv(issuer), "clientIdLists": listValue([]string{"sts.amazonaws.com", "other"})}
	if d := p.diff(t, r, p.check(t, tOIDC, "oidc", other, r.inputs)); len(d.GetReplaces()) != 0 || strings.Join(d.GetDiffs(), ",") != "clientIdLists" {
		t.Errorf("client IDs: want an in-place update, got diffs %v replaces %v", d.GetDiffs(), d.GetReplaces())
	}
	// A refresh reads the URL back as IAM stores it, without its scheme; terraform's
	// suppressOpenIDURL makes that no change (before, a refresh planned to replace the provider,
	// and with it every trust policy naming its ARN).
	_, _, refreshed := p.read(t, r)
	if str(refreshed, "url") != strings.TrimPrefix(issuer, "https://") {
		t.Errorf("refreshed url %q: IAM returns it without the scheme", str(refreshed, "url"))
	}
	if d := p.diff(t, &res{typ: r.typ, name: r.name, urn: r.urn, id: r.id, inputs: refreshed, outputs: r.outputs},
		p.check(t, tOIDC, "oidc", in, refreshed)); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("after a refresh, the program's url (with https://) against IAM's: diffs %v replaces %v, want none", d.GetDiffs(), d.GetReplaces())
	}
	r = p.update(t, r, more)
	got, err = cl.GetOpenIDConnectProvider(context.Background(), &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(r.id)})
	if err != nil || strings.Join(got.ThumbprintList, ",") != thumb || fromIAMTags(got.Tags)["team"] != "a" {
		t.Errorf("after the update moto holds %+v, %v", got, err)
	}
	moved := pmap{"url": sv(issuer + "X"), "clientIdLists": listValue([]string{"sts.amazonaws.com"})}
	if d := p.diff(t, r, p.check(t, tOIDC, "oidc", moved, r.inputs)); strings.Join(d.GetReplaces(), ",") != "url" {
		t.Errorf("a new url: want a replacement on url, got %v", d.GetReplaces())
	}
	if _, failures := p.checkFailures(t, tOIDC, "bad", pmap{"url": sv("http://example.com"), "clientIdLists": listValue([]string{"x"})}, nil); len(failures) != 1 || !strings.Contains(failures[0], "HTTPS") {
		t.Errorf("an http URL: want one failure naming HTTPS, got %q", failures)
	}
	p.delete(t, r)
	if _, err := cl.GetOpenIDConnectProvider(context.Background(), &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(r.id)}); !isNotFound(err) {
		t.Errorf("after Delete: want NoSuchEntity, got %v", err)
	}
}
