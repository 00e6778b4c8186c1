package informers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonesync/zonesync/informers"
)

func bulkyNode() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}},
		Spec:       corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "192.0.2.1"}},
			Images:          []corev1.ContainerImage{{Names: []string{"registry.example/big:1"}, SizeBytes: 1 << 30}},
			VolumesInUse:    []corev1.UniqueVolumeName{"kubernetes.io/csi/vol-1"},
			VolumesAttached: []corev1.AttachedVolume{{Name: "kubernetes.io/csi/vol-1", DevicePath: "/dev/sdb"}},
			Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

func bulkyPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "ns"},
		Spec: corev1.PodSpec{
			NodeName: "n1", HostNetwork: true,
			Containers: []corev1.Container{{Name: "app", Image: "app:1"}},
			Volumes:    []corev1.Volume{{Name: "data"}},
		},
		Status: corev1.PodStatus{
			PodIP:                      "10.0.0.1",
			PodIPs:                     []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}},
			Conditions:                 []corev1.PodCondition{{Type: corev1.PodReady}},
			ContainerStatuses:          []corev1.ContainerStatus{{Name: "app"}},
			InitContainerStatuses:      []corev1.ContainerStatus{{Name: "init"}},
			EphemeralContainerStatuses: []corev1.ContainerStatus{{Name: "debug"}},
		},
	}
}

func TestTransformerRemoveBulkyFields(t *testing.T) {
	t.Run("node", func(t *testing.T) {
		out, err := informers.TransformerWithOptions[*corev1.Node](informers.TransformOptions{RemoveBulkyFields: true})(bulkyNode())
		require.NoError(t, err)
		got := out.(*corev1.Node)
		assert.Nil(t, got.Status.Images)
		assert.Nil(t, got.Status.VolumesInUse)
		assert.Nil(t, got.Status.VolumesAttached)
		// What the node source reads stays, and conditions go only with
		// RemoveStatusConditions.
		assert.Equal(t, []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "192.0.2.1"}}, got.Status.Addresses)
		assert.True(t, got.Spec.Unschedulable)
		assert.Equal(t, map[string]string{"zone": "a"}, got.Labels)
		assert.Len(t, got.Status.Conditions, 1)
		assert.Equal(t, "Node", got.Kind)
	})
	t.Run("pod", func(t *testing.T) {
		out, err := informers.TransformerWithOptions[*corev1.Pod](informers.TransformOptions{RemoveBulkyFields: true, RemoveStatusConditions: true})(bulkyPod())
		require.NoError(t, err)
		got := out.(*corev1.Pod)
		assert.Nil(t, got.Spec.Volumes)
		assert.Nil(t, got.Status.ContainerStatuses)
		assert.Nil(t, got.Status.InitContainerStatuses)
		assert.Nil(t, got.Status.EphemeralContainerStatuses)
		assert.Nil(t, got.Status.Conditions)
		assert.Equal(t, "n1", got.Spec.NodeName)
		assert.True(t, got.Spec.HostNetwork)
		assert.Len(t, got.Spec.Containers, 1)
		assert.Equal(t, "10.0.0.1", got.Status.PodIP)
		assert.Equal(t, []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}, got.Status.PodIPs)
	})
	t.Run("off", func(t *testing.T) {
		out, err := informers.TransformerWithOptions[*corev1.Node](informers.TransformOptions{})(bulkyNode())
		require.NoError(t, err)
		assert.Equal(t, bulkyNode().Status, out.(*corev1.Node).Status)
	})
	t.Run("other types untouched", func(t *testing.T) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.1.0.1"}}
		out, err := informers.TransformerWithOptions[*corev1.Service](informers.TransformOptions{RemoveBulkyFields: true})(svc)
		require.NoError(t, err)
		assert.Equal(t, "10.1.0.1", out.(*corev1.Service).Spec.ClusterIP)
	})
}
