//go:build e2e

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"
)

// TestPreview: Create and Update with preview=true call nothing (no moto object, no operation
// logged) and answer unknowns for what the cloud computes; Check and Diff take unknown inputs
// (outputs of resources not created yet).
func TestPreview(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	name := unique(t, "interruption")
	in := p.check(t, tQueue, "interruption", pmap{"name": sv(name), "messageRetentionSeconds": nv(300), "sqsManagedSseEnabled": bv(true)}, nil)
	outs := p.previewCreate(t, tQueue, "interruption", in)
	for _, k := range []string{"arn", "url", "id", "policy", "kmsDataKeyReusePeriodSeconds"} {
		if !isUnknown(outs[resource.PropertyKey(k)]) {
			t.Errorf("preview %s = %v, want unknown", k, outs[resource.PropertyKey(k)])
		}
	}
	if str(outs, "name") != name {
		t.Errorf("preview name %v, want the known input", outs["name"])
	}
	if n, _ := integer(outs, "messageRetentionSeconds"); n != 300 {
		t.Errorf("preview messageRetentionSeconds %v", outs["messageRetentionSeconds"])
	}
	if n, _ := integer(outs, "visibilityTimeoutSeconds"); n != 30 {
		t.Errorf("preview visibilityTimeoutSeconds %v, want the schema default 30", outs["visibilityTimeoutSeconds"])
	}
	if _, err := moto().sqs.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String(name)}); !isNotFound(err) {
		t.Errorf("a preview created the queue in moto: %v", err)
	}

	// A role whose trust policy and name depend on resources not created yet.
	unknownIn := p.check(t, tRole, "controller", pmap{"assumeRolePolicy": resource.MakeComputed(sv("")), "name": sv(unique(t, "c"))}, nil)
	routs := p.previewCreate(t, tRole, "controller", unknownIn)
	if !isUnknown(routs["arn"]) || !isUnknown(routs["assumeRolePolicy"]) || !isUnknown(routs["uniqueId"]) || str(routs, "path") != "/" {
		t.Errorf("role preview outputs %v", routs)
	}
	// An attachment to that role: the role name is known from the inputs, the policy ARN not.
	ain := p.check(t, tAttachment, "attach", pmap{"role": routs["name"], "policyArn": resource.MakeComputed(sv(""))}, nil)
	if !isUnknown(ain["policyArn"]) {
		t.Errorf("checked attachment inputs %v", ain)
	}
	// A missing required input fails Check; an unknown one does not.
	if _, failures := p.checkFailures(t, tAttachment, "attach", pmap{"policyArn": resource.MakeComputed(sv(""))}, nil); len(failures) != 1 || !strings.Contains(failures[0], "role") {
		t.Errorf("missing role: failures %v", failures)
	}

	// Update previews keep what the update does not change known.
	q := p.create(t, tQueue, "real", pmap{"name": sv(unique(t, "real"))})
	t.Cleanup(func() { _ = p.tryDelete(q) })
	news := q.inputs.Copy()
	news["messageRetentionSeconds"] = resource.MakeComputed(sv(""))
	d := p.diff(t, q, p.check(t, tQueue, "real", news, q.inputs))
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("unknown retention: want an update, got %v replaces %v", d.GetDiffs(), d.GetReplaces())
	}
	uouts := p.previewUpdate(t, q, news)
	if str(uouts, "arn") != str(q.outputs, "arn") || str(uouts, "url") != q.id || !isUnknown(uouts["messageRetentionSeconds"]) {
		t.Errorf("update preview: arn %v url %v retention %v", uouts["arn"], uouts["url"], uouts["messageRetentionSeconds"])
	}
	// An unknown create-only input may change: Diff plans a replacement.
	news = q.inputs.Copy()
	news["name"] = resource.MakeComputed(sv(""))
	if d := p.diff(t, q, news); len(d.GetReplaces()) != 1 || d.GetReplaces()[0] != "name" {
		t.Errorf("unknown name: want replace, got %v", d.GetReplaces())
	}

	for _, l := range opLines(t, env) {
		if l[4] == "interruption" || l[4] == "controller" {
			t.Errorf("a preview was logged as an operation: %v", l)
		}
	}
}

func TestCheckFailures(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	for _, tc := range []struct {
		typ  string
		in   pmap
		want string
	}{
		{tRole, pmap{}, `assumeRolePolicy: Missing required argument`},
		{tRole, pmap{"assumeRolePolicy": sv("{not json")}, `assumeRolePolicy: "assumeRolePolicy" contains an invalid JSON`},
		{tRole, pmap{"assumeRolePolicy": sv("{}"), "maxSessionDuration": nv(60)}, "maxSessionDuration: expected maxSessionDuration to be in the range (3600 - 43200)"},
		{tRole, pmap{"assumeRolePolicy": sv("{}"), "name": sv(strings.Repeat("n", 65))}, `name: "name" must be at most 64 characters`},
		{tRole, pmap{"assumeRolePolicy": sv("{}"), "nmae": sv("typo")}, `nmae: aws:iam/role:Role has no input "nmae"`},
		{tRole, pmap{"assumeRolePolicy": nv(1)}, `assumeRolePolicy: "assumeRolePolicy" must be a string`},
		{tQueue, pmap{"name": sv("bad name!")}, "name: invalid queue name"},
		{tQueue, pmap{"kmsMasterKeyId": sv("k"), "sqsManagedSseEnabled": bv(true)}, "conflicts with sqsManagedSseEnabled"},
		{tRule, pmap{"description": sv("x")}, `one of "eventPattern" or "scheduleExpression" must be specified`},
		{tTarget, pmap{"rule": sv("r"), "arn": sv("arn:aws:sqs:x"), "sqsTarget": resource.NewObjectProperty(pmap{})}, "not supported by the stand-in"},
		{tAccessEntry, pmap{"clusterName": sv("c"), "principalArn": sv("arn:aws:iam::1:role/r"), "type": sv("EC2_MAC")}, "type: expected type to be one of"},
		{tSLR, pmap{"awsServiceName": sv("spot")}, "must be a full service hostname"},
	} {
		_, failures := p.checkFailures(t, tc.typ, "x", tc.in, nil)
		if !strings.Contains(strings.Join(failures, "\n"), tc.want) {
			t.Errorf("%s %v: failures %q, want one containing %q", tc.typ, tc.in, failures, tc.want)
		}
	}
	// Unknown values are checked when they are known, not before.
	if _, failures := p.checkFailures(t, tRole, "x", pmap{"assumeRolePolicy": resource.MakeComputed(sv("")), "maxSessionDuration": resource.MakeComputed(sv(""))}, nil); len(failures) > 0 {
		t.Errorf("unknown inputs: failures %v", failures)
	}
	if _, err := p.Check(context.Background(), &pulumirpc.CheckRequest{Urn: urnOf("aws:s3/bucket:Bucket", "b"), News: mustMarshal(t, pmap{})}); err == nil || !strings.Contains(err.Error(), "stand-in") {
		t.Errorf("a type the stand-in does not serve: %v", err)
	}
}

func TestInvokes(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	part, err := p.invoke(t, "aws:index/getPartition:getPartition", pmap{})
	if err != nil || str(part, "partition") != "aws" || str(part, "dnsSuffix") != "amazonaws.com" {
		t.Errorf("getPartition = %v, %v", part, err)
	}
	region, err := p.invoke(t, "aws:index/getRegion:getRegion", pmap{})
	if err != nil || str(region, "name") != testRegion || str(region, "id") != testRegion ||
		str(region, "endpoint") != "ec2."+testRegion+".amazonaws.com" || str(region, "description") != "US West (Oregon)" {
		t.Errorf("getRegion = %v, %v", region, err)
	}
	if _, ok := region["region"]; ok {
		t.Errorf("getRegion answered `region`, which only pulumi-aws v7 has: %v", region)
	}
	caller, err := p.invoke(t, "aws:index/getCallerIdentity:getCallerIdentity", pmap{})
	if err != nil || str(caller, "accountId") != testAccount || str(caller, "arn") == "" {
		t.Errorf("getCallerIdentity = %v, %v", caller, err)
	}
	if _, err := p.invoke(t, "aws:ec2/getInternetGateway:getInternetGateway", pmap{}); err == nil {
		t.Errorf("an invoke the stand-in does not serve succeeded")
	}
	var invokeLines int
	for _, l := range opLines(t, env) {
		if l[2] == "Invoke" {
			invokeLines++
			if l[4] != "-" || l[5] != "-" {
				t.Errorf("invoke line %v", l)
			}
		}
	}
	if invokeLines != 3 {
		t.Errorf("%d invokes logged, want 3", invokeLines)
	}
}

// TestOpLogFormat: every line is `<RFC3339Nano> aws <op> <type> <urn-name> <id> <parents> <keys>`,
// an update naming the inputs it changed and an invoke the arguments it was given.
func TestOpLogFormat(t *testing.T) {
	env := testSettings(t)
	p := newPlugin(t, env)
	r := p.create(t, tRole, "fmt", pmap{"name": sv(unique(t, "fmt")), "assumeRolePolicy": sv(trust("ec2.amazonaws.com"))})
	p.read(t, r)
	r = p.update(t, r, func() pmap { n := r.inputs.Copy(); n["description"] = sv("d"); return n }())
	p.delete(t, r)
	if _, err := p.invoke(t, "aws:index/getRegion:getRegion", pmap{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(env.logPath)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^(\S+) aws (Create|Read|Update|Delete|Invoke) (\S+) (\S+) (\S+) (\S+) (\S+)$`)
	var ops []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q does not match the format", line)
		}
		if _, err := time.Parse(time.RFC3339Nano, m[1]); err != nil {
			t.Errorf("timestamp %q: %v", m[1], err)
		}
		ops = append(ops, strings.Join(m[2:], " "))
	}
	want := []string{
		"Create aws:iam/role:Role fmt " + r.id + " karpenter:index:Karpenter assumeRolePolicy,name", "Read aws:iam/role:Role fmt " + r.id + " karpenter:index:Karpenter -",
		"Update aws:iam/role:Role fmt " + r.id + " karpenter:index:Karpenter description", "Delete aws:iam/role:Role fmt " + r.id + " karpenter:index:Karpenter -",
		"Invoke aws:index/getRegion:getRegion - - - -",
	}
	if strings.Join(ops, "\n") != strings.Join(want, "\n") {
		t.Errorf("operations:\n%s\nwant\n%s", strings.Join(ops, "\n"), strings.Join(want, "\n"))
	}
}

func TestSchemaAndConfig(t *testing.T) {
	p := newPlugin(t, testSettings(t))
	info, err := p.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != "6.83.2+standin" {
		t.Errorf("GetPluginInfo = %v, %v", info, err)
	}
	resp, err := p.GetSchema(context.Background(), &pulumirpc.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Name, Version, Description string
		Resources                  map[string]json.RawMessage
		Functions                  map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(resp.GetSchema()), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "aws" || s.Version != "6.83.2" || !strings.Contains(s.Description, "stand-in") || len(s.Resources) != 27 || len(s.Functions) != 17 {
		t.Errorf("schema %s %s %q: %d resources, %d functions", s.Name, s.Version, s.Description, len(s.Resources), len(s.Functions))
	}
	// aws:region wins over AWS_REGION; no region at all fails CheckConfig.
	env := testSettings(t)
	env.region = ""
	bare := newProvider(nil, env)
	cr, err := bare.CheckConfig(context.Background(), &pulumirpc.CheckRequest{News: mustMarshal(t, pmap{"version": sv("6.83.2")})})
	if err != nil || len(cr.GetFailures()) != 1 || cr.GetFailures()[0].GetProperty() != "region" {
		t.Errorf("CheckConfig without a region: %v %v", cr.GetFailures(), err)
	}
	cr, _ = bare.CheckConfig(context.Background(), &pulumirpc.CheckRequest{News: mustMarshal(t, pmap{"region": sv("eu-west-1"), "endpoints": resource.NewArrayProperty(nil)})})
	if len(cr.GetFailures()) != 1 || cr.GetFailures()[0].GetProperty() != "endpoints" {
		t.Errorf("CheckConfig with endpoints: %v", cr.GetFailures())
	}
	if _, err := bare.Configure(context.Background(), &pulumirpc.ConfigureRequest{Variables: map[string]string{"aws:config:region": "eu-west-1"}}); err != nil {
		t.Fatal(err)
	}
	out, err := getRegion(context.Background(), bare, pmap{})
	if err != nil || str(out, "name") != "eu-west-1" {
		t.Errorf("getRegion after Configure(aws:region=eu-west-1) = %v, %v", out, err)
	}
}

// runSelf runs the test binary as the plugin (TestMain calls main()).
func runSelf(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append([]string{"STANDIN_AWS_RUN_MAIN=1", "STANDIN_AWS_ARGS=" + strings.Join(args, " "), "PATH=" + os.Getenv("PATH")}, env...)
	return cmd
}

// TestBinary runs the plugin as the engine does: a process that refuses to start without a
// loopback moto, prints its port, and serves the protocol; and `--version`.
func TestBinary(t *testing.T) {
	out, err := runSelf(t, nil, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "6.83.2" {
		t.Errorf("--version stdout %q, %v", out, err)
	}
	if cmd := runSelf(t, nil, "--version"); true {
		stderr, _ := cmd.CombinedOutput()
		if !strings.Contains(string(stderr), "stand-in for pulumi-aws 6.83.2 (test only)") {
			t.Errorf("--version does not say it is a stand-in: %q", stderr)
		}
	}

	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y", "STANDIN_STATE_DIR=" + t.TempDir()}, "AWS_ENDPOINT_URL is not set"},
		{[]string{"AWS_ENDPOINT_URL=https://iam.amazonaws.com", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y", "STANDIN_STATE_DIR=" + t.TempDir()}, "is not on loopback"},
		{[]string{"AWS_ENDPOINT_URL=" + motoEndpoint, "STANDIN_STATE_DIR=" + t.TempDir()}, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set"},
		{[]string{"AWS_ENDPOINT_URL=" + motoEndpoint, "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y"}, "STANDIN_STATE_DIR is not set"},
	} {
		out, err := runSelf(t, tc.env).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "stand-in for pulumi-aws 6.83.2 (test only)") {
			t.Errorf("env %v: want a refusal naming %q, got %v: %s", tc.env, tc.want, err, out)
		}
	}

	// Attach mode (no engine address): the plugin prints its port and serves.
	logPath := t.TempDir() + "/ops.log"
	cmd := runSelf(t, []string{"AWS_ENDPOINT_URL=" + motoEndpoint, "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y",
		"AWS_REGION=" + testRegion, "STANDIN_STATE_DIR=" + t.TempDir(), "STANDIN_LOG=" + logPath})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the port: %v (stderr: %s)", err, stderr.String())
	}
	var port int
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d", &port); err != nil || port == 0 {
		t.Fatalf("the plugin printed %q, want its port", line)
	}
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := pulumirpc.NewResourceProviderClient(conn)
	info, err := client.GetPluginInfo(context.Background(), &emptypb.Empty{})
	if err != nil || info.GetVersion() != "6.83.2+standin" {
		t.Errorf("GetPluginInfo = %v, %v", info, err)
	}
	if _, err := client.Configure(context.Background(), &pulumirpc.ConfigureRequest{}); err != nil {
		t.Fatalf("Configure (region from AWS_REGION): %v", err)
	}
	ret, err := client.Invoke(context.Background(), &pulumirpc.InvokeRequest{Tok: "aws:index/getCallerIdentity:getCallerIdentity", Args: mustMarshal(t, pmap{})})
	if err != nil || str(mustUnmarshal(t, ret.GetReturn()), "accountId") != testAccount {
		t.Errorf("getCallerIdentity through the process: %v %v", ret, err)
	}
	if data, _ := os.ReadFile(logPath); !strings.Contains(string(data), " aws Invoke aws:index/getCallerIdentity:getCallerIdentity - -") {
		t.Errorf("operation log %q", data)
	}
	if !strings.Contains(stderr.String(), "pulumi-resource-aws (stand-in for pulumi-aws 6.83.2 (test only)): starting") {
		t.Errorf("stderr %q", stderr.String())
	}
}
