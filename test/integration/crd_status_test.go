package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secschedv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

func TestSecondarySchedulerStatusIsASubresource(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	client := env.Admin.Operator.OperatorV1().SecondarySchedulers()
	created, err := client.Create(ctx, managedSecondaryScheduler(), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deleteAtEnd(t, env, secondarySchedulerGVR, "", created.Name)

	// Through the main resource, a status change is dropped.
	viaMain := created.DeepCopy()
	viaMain.Status.ReadyReplicas = 1
	viaMain.Status.SchedulerNames = []string{"via-main"}
	updated, err := client.Update(ctx, viaMain, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Status.ReadyReplicas != 0 || len(updated.Status.SchedulerNames) != 0 {
		t.Errorf("an update of the main resource changed status to %+v", updated.Status)
	}

	// Through /status, it persists, a spec change is dropped and the generation
	// does not move.
	viaStatus := updated.DeepCopy()
	viaStatus.Spec.Replicas = ptr.To[int32](3)
	viaStatus.Status.ReadyReplicas = 1
	viaStatus.Status.SchedulerNames = []string{"secondary-scheduler"}
	viaStatus.Status.Conditions = []operatorv1.OperatorCondition{{
		Type: "Available", Status: operatorv1.ConditionTrue, LastTransitionTime: metav1.Now(),
	}}
	if _, err := client.UpdateStatus(ctx, viaStatus, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.Get(ctx, secschedv1.SingletonName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ReadyReplicas != 1 || !slices.Equal(got.Status.SchedulerNames, []string{"secondary-scheduler"}) {
		t.Errorf("the status written through /status did not persist: %+v", got.Status)
	}
	if *got.Spec.Replicas != 1 {
		t.Errorf("an update of /status changed spec.replicas to %d", *got.Spec.Replicas)
	}
	if got.Generation != created.Generation {
		t.Errorf("status updates moved the generation from %d to %d", created.Generation, got.Generation)
	}

	table := getTable(t, env, "/apis/operator.openshift.io/v1/secondaryschedulers")
	expectColumns(t, table, "Name", "State", "Available", "Progressing", "Degraded", "Ready", "Schedulers", "Age")
	row := tableRow(t, table, secschedv1.SingletonName)
	for column, want := range map[string]string{"State": "Managed", "Available": "True", "Ready": "1"} {
		if got := row[column]; got != want {
			t.Errorf("column %s = %q, want %q", column, got, want)
		}
	}
	if !strings.Contains(row["Schedulers"], "secondary-scheduler") {
		t.Errorf("column Schedulers = %q, want it to list secondary-scheduler", row["Schedulers"])
	}
	t.Logf("table row: %v", row)
}

func TestSimulatorStatusIsASubresource(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "sim-status")
	client := env.Admin.Operator.SimulationV1alpha1().Simulators(ns)
	created, err := client.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deleteAtEnd(t, env, simulatorGVR, ns, created.Name)

	viaMain := created.DeepCopy()
	viaMain.Status.Phase = simv1alpha1.SimulatorAvailable
	updated, err := client.Update(ctx, viaMain, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Status.Phase != "" {
		t.Errorf("an update of the main resource changed status.phase to %q", updated.Status.Phase)
	}

	viaStatus := updated.DeepCopy()
	viaStatus.Spec.Image = "registry.example/other:1"
	viaStatus.Status = simv1alpha1.SimulatorStatus{
		Phase:              simv1alpha1.SimulatorAvailable,
		Message:            ptr.To("the simulator is ready"),
		KubeAPIServerURL:   "http://sim.example.svc:3131",
		ObservedGeneration: created.Generation,
	}
	if _, err := client.UpdateStatus(ctx, viaStatus, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.Get(ctx, "sim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != simv1alpha1.SimulatorAvailable || got.Status.KubeAPIServerURL == "" {
		t.Errorf("the status written through /status did not persist: %+v", got.Status)
	}
	if got.Spec.Image != simv1alpha1.DefaultImage {
		t.Errorf("an update of /status changed spec.image to %q", got.Spec.Image)
	}

	table := getTable(t, env, fmt.Sprintf("/apis/%s/namespaces/%s/simulators", simv1alpha1.SchemeGroupVersion, ns))
	expectColumns(t, table, "Name", "Phase", "API Server", "Image", "Message", "Age")
	row := tableRow(t, table, "sim")
	for column, want := range map[string]string{
		"Phase":      "Available",
		"API Server": "http://sim.example.svc:3131",
		"Image":      simv1alpha1.DefaultImage,
		"Message":    "the simulator is ready",
	} {
		if got := row[column]; got != want {
			t.Errorf("column %s = %q, want %q", column, got, want)
		}
	}
	t.Logf("table row: %v", row)
}

// getTable lists a resource as a server-side Table, as kubectl get does.
func getTable(t *testing.T, env *framework.Env, path string) *metav1.Table {
	t.Helper()
	data, err := env.Admin.Kube.Discovery().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(context.Background())
	if err != nil {
		t.Fatalf("GET %s as Table: %v", path, err)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(data, table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" {
		t.Fatalf("GET %s as Table returned a %q", path, table.Kind)
	}
	return table
}

func expectColumns(t *testing.T, table *metav1.Table, want ...string) {
	t.Helper()
	var got []string
	for _, c := range table.ColumnDefinitions {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("printer columns = %q, want %q", got, want)
	}
}

// tableRow returns the cells of the row of the named object, by column name.
func tableRow(t *testing.T, table *metav1.Table, name string) map[string]string {
	t.Helper()
	for _, r := range table.Rows {
		if len(r.Cells) != len(table.ColumnDefinitions) {
			t.Fatalf("a row has %d cells for %d columns", len(r.Cells), len(table.ColumnDefinitions))
		}
		if fmt.Sprint(r.Cells[0]) != name {
			continue
		}
		row := map[string]string{}
		for i, c := range table.ColumnDefinitions {
			if r.Cells[i] != nil {
				row[c.Name] = fmt.Sprint(r.Cells[i])
			}
		}
		return row
	}
	t.Fatalf("no row for %s in the table", name)
	return nil
}
