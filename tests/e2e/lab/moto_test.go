//go:build e2e

package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The programs tag subnets and security groups in parallel while other requests describe tags
// (the aws stand-in reads each tag back; the Karpenter controller describes subnets). AWS answers
// all of them; moto 5.2.5 alone fails DescribeTags with HTTP 500 when a CreateTags on another
// thread changes the tag store it iterates, about one run of the e2e suite in many. With Python's
// thread switch interval at 10µs the race shows within seconds: this test failed with 7-10 such
// errors of its 3,200 requests, in each of three runs, before moto/motoserver.py serialized the tag store.
func TestEC2TagsUnderConcurrentRequests(t *testing.T) {
	tools, err := FindTools()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := StartMoto(ctx, tools.MotoServer, filepath.Join(t.TempDir(), "moto"), "MOTOSERVER_SWITCH_INTERVAL=0.00001")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	cfg := aws.Config{Region: Region, BaseEndpoint: aws.String(m.URL), RetryMaxAttempts: 1, // every 500 counts
		Credentials: credentials.NewStaticCredentialsProvider(dummyAccessKey, dummySecretKey, "")}
	vpc, err := seedVPC(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl := ec2.NewFromConfig(cfg)
	resources := append(append([]string{}, vpc.SubnetIDs...), vpc.SecurityGroupID)
	// Many tags per resource: DescribeTags spends longer in each resource's tags, the window of the race.
	var base []ec2types.Tag
	for i := range 40 {
		base = append(base, ec2types.Tag{Key: aws.String(fmt.Sprintf("base-%d", i)), Value: aws.String("v")})
	}
	if _, err := cl.CreateTags(ctx, &ec2.CreateTagsInput{Resources: resources, Tags: base}); err != nil {
		t.Fatal(err)
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	for _, id := range resources {
		for w := range 2 {
			wg.Add(1)
			go func() { // writers: a tag on, a tag off
				defer wg.Done()
				for n := range 100 {
					tag := []ec2types.Tag{{Key: aws.String(fmt.Sprintf("w%d-%d", w, n%20)), Value: aws.String("v")}}
					if _, err := cl.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{id}, Tags: tag}); err != nil {
						fail(err)
					}
					if _, err := cl.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{id}, Tags: tag}); err != nil {
						fail(err)
					}
				}
			}()
		}
	}
	for range 4 {
		wg.Add(1)
		go func() { // readers, as the stand-in reads a tag back
			defer wg.Done()
			for range 400 {
				if _, err := cl.DescribeTags(ctx, &ec2.DescribeTagsInput{Filters: []ec2types.Filter{
					{Name: aws.String("resource-id"), Values: []string{vpc.SecurityGroupID}}}}); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Errorf("%d of %d requests failed; the first: %v\nmoto's tracebacks:\n%s", len(errs), 2*2*100*len(resources)+4*400, errs[0], m.Errors())
	}
}

// SetQueueAttributes changes only the attributes it names (SQS API Reference): a queue's policy
// survives a change of its retention. moto 5.2.5 alone clears it (Queue._set_attributes); the
// lab's moto keeps it (moto/motoserver.py). Run against plain moto_server, this test failed.
func TestQueuePolicySurvivesOtherAttributes(t *testing.T) {
	tools, err := FindTools()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := StartMoto(ctx, tools.MotoServer, filepath.Join(t.TempDir(), "moto"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	cl := sqs.NewFromConfig(aws.Config{Region: Region, BaseEndpoint: aws.String(m.URL),
		Credentials: credentials.NewStaticCredentialsProvider(dummyAccessKey, dummySecretKey, "")})
	q, err := cl.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("interruption")})
	if err != nil {
		t.Fatal(err)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"events.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`
	for _, attrs := range []map[string]string{{"Policy": policy}, {"MessageRetentionPeriod": "300"}} {
		if _, err := cl.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: attrs}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNamePolicy, sqstypes.QueueAttributeNameMessageRetentionPeriod}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Attributes["Policy"] == "" || got.Attributes["MessageRetentionPeriod"] != "300" {
		t.Errorf("after setting the retention: %v, want the policy kept", got.Attributes)
	}
}
