package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * relayctl's side of the admin API contract: every object of the example answers in {@code
 * docs/admin-api/} (the files the server's {@code AdminContractTest} checks its own answers
 * against) has exactly the keys, in the same order, of the {@link AdminObjects} record relayctl
 * reads it as, and reads back with every component set.
 */
class AdminObjectsTest {

  @Test
  void statusObjectsAreTheContractsObjects() throws Exception {
    JsonNode status = answer("status");
    assertKeys(status, AdminObjects.StatusObject.class);
    assertKeys(status.get("relay"), AdminObjects.RelayObject.class);
    assertKeys(status.get("upstream"), AdminObjects.UpstreamObject.class);
    assertKeys(status.get("store"), AdminObjects.StoreObject.class);
    assertKeys(status.get("archive"), AdminObjects.ArchiveObject.class);
    assertKeys(status.get("replicas"), AdminObjects.ReplicaCountObject.class);
  }

  @Test
  void upstreamBinlogsAndGtidAreTheContractsObjects() throws Exception {
    assertKeys(answer("upstream"), AdminObjects.UpstreamObject.class);
    JsonNode binlogs = answer("binlogs");
    assertThat(binlogs).isNotEmpty();
    binlogs.forEach(b -> assertKeys(b, AdminObjects.BinlogObject.class));
    assertKeys(answer("gtid"), AdminObjects.GtidObject.class);
  }

  @Test
  void archiveIsTheContractsObject() throws Exception {
    assertKeys(answer("archive"), AdminObjects.ArchiveObject.class);
  }

  @Test
  void replicasAndLagAreTheContractsObjects() throws Exception {
    assertKeys(answer("replica"), AdminObjects.ReplicaObject.class);
    JsonNode replicas = answer("replicas");
    assertThat(replicas).isNotEmpty();
    replicas.forEach(r -> assertKeys(r, AdminObjects.ReplicaObject.class));
    for (String name : List.of("lag", "lag-2")) {
      JsonNode lag = answer(name);
      assertKeys(lag, AdminObjects.LagObject.class);
      assertKeys(lag.get("upstream"), AdminObjects.UpstreamLagObject.class);
      assertThat(lag.get("replicas")).isNotEmpty();
      lag.get("replicas").forEach(r -> assertKeys(r, AdminObjects.ReplicaObject.class));
    }
  }

  @Test
  void aMissingKeyReadsAsNullAndAnUnknownOneIsIgnored() throws Exception {
    AdminObjects.GtidObject g =
        AdminObjects.of(
            AdminClient.JSON.readTree("{\"flavor\":\"mysql\",\"purged\":null," + "\"future\":1}"),
            AdminObjects.GtidObject.class);
    assertThat(g.flavor().asText()).isEqualTo("mysql");
    assertThat(g.executed()).isNull();
    assertThat(HumanUnits.known(g.purged())).isFalse();
    assertThat(
            AdminObjects.of(AdminClient.JSON.readTree("[1]"), AdminObjects.GtidObject.class)
                .flavor())
        .isNull();
  }

  private static JsonNode answer(String name) throws Exception {
    return AdminClient.JSON.readTree(Contract.json(name));
  }

  private static void assertKeys(JsonNode object, Class<? extends Record> type) {
    List<String> components =
        Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    assertThat(keys(object)).as(type.getSimpleName() + " against " + object).isEqualTo(components);
    Record read = AdminObjects.of(object, type);
    for (RecordComponent c : type.getRecordComponents()) {
      try {
        assertThat(c.getAccessor().invoke(read))
            .as(type.getSimpleName() + "." + c.getName())
            .isNotNull();
      } catch (ReflectiveOperationException e) {
        throw new LinkageError(e.getMessage(), e);
      }
    }
  }

  private static List<String> keys(JsonNode object) {
    assertThat(object.isObject()).as(String.valueOf(object)).isTrue();
    List<String> keys = new ArrayList<>();
    for (Iterator<String> i = object.fieldNames(); i.hasNext(); ) {
      keys.add(i.next());
    }
    return keys;
  }
}
