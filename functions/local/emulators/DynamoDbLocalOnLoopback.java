// Starts DynamoDB Local bound to 127.0.0.1 only. DynamoDB Local has no option for the interface
// it listens on (Jetty's Server(port) binds every interface), and it answers any request with
// any credentials: reachable from the network, it would hand out every table. This launcher
// builds the server as DynamoDB Local's own main would, sets its connector's host to the
// loopback address, then starts it. Run with `java -cp <DynamoDB Local classpath> <this file> <its options>`
// (the single-file source launcher of Java 11+: nothing to compile beforehand).
// It also exits when its standard input closes: the Node process that started it holds the other
// end of that pipe, so however that process ends (even SIGKILL), DynamoDB Local does not outlive it.
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class DynamoDbLocalOnLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Nothing is sent: only the end of the stream matters.
        }
      } catch (java.io.IOException closed) {
        // A broken pipe is an end too.
      }
      System.exit(0);
    });
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
