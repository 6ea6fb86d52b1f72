package io.github.redislock.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal synchronous Redis client over a plain socket, for setup and assertions in
 * tests. Speaks RESP2: replies are returned as {@link String} (simple and bulk strings),
 * {@link Long} (integers), {@link List} (arrays) or {@code null} (null bulk strings and
 * arrays); error replies throw {@link RedisErrorReplyException}, except inside an array
 * (as in the reply to {@code EXEC}) where the exception is the element.
 * <p>
 * Connects when created. Connecting and every read time out after {@link #DEFAULT_TIMEOUT
 * 5 seconds} unless another timeout is given, so a paused server makes commands fail with
 * an {@link UncheckedIOException} instead of hanging. After such an I/O failure the
 * connection is dropped and the next command connects again. Not thread-safe.
 */
public final class RedisCli implements AutoCloseable {

	/**
	 * The connect and read timeout used unless another one is given: 5 seconds.
	 */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	private final String host;

	private final int port;

	private final int timeoutMillis;

	private Socket socket;

	private InputStream input;

	private OutputStream output;

	/**
	 * Connects to Redis with the {@link #DEFAULT_TIMEOUT default timeout}.
	 * @param host the host
	 * @param port the port
	 * @throws UncheckedIOException if the connection fails
	 */
	public RedisCli(String host, int port) {
		this(host, port, DEFAULT_TIMEOUT);
	}

	/**
	 * Connects to Redis.
	 * @param host the host
	 * @param port the port
	 * @param timeout the connect timeout and the read timeout of every command
	 * @throws UncheckedIOException if the connection fails
	 */
	public RedisCli(String host, int port, Duration timeout) {
		this.host = host;
		this.port = port;
		this.timeoutMillis = Math.toIntExact(Math.max(1, timeout.toMillis()));
		connect();
	}

	/**
	 * Sends a command and returns its reply.
	 * @param args the command name and its arguments, for example
	 * {@code "SET", "key", "value"}
	 * @return the reply: a {@link String}, {@link Long}, {@link List} or {@code null}
	 * @throws RedisErrorReplyException if Redis replies with an error
	 * @throws UncheckedIOException if the connection fails or times out
	 */
	public Object command(String... args) {
		if (args.length == 0) {
			throw new IllegalArgumentException("A command needs at least its name");
		}
		if (this.socket == null) {
			connect();
		}
		try {
			write(args);
			return read();
		}
		catch (IOException ex) {
			// The reply may still arrive later and would be mistaken for the next one's
			disconnect();
			throw new UncheckedIOException("Command " + args[0] + " to " + this.host + ":" + this.port + " failed", ex);
		}
	}

	/**
	 * Sends {@code PING}.
	 * @return the reply, {@code "PONG"}
	 */
	public String ping() {
		return (String) command("PING");
	}

	/**
	 * Sends {@code FLUSHALL}, deleting every key of every database.
	 * @return the reply, {@code "OK"}
	 */
	public String flushAll() {
		return (String) command("FLUSHALL");
	}

	/**
	 * Sends {@code DBSIZE}.
	 * @return the number of keys in the current database
	 */
	public long dbSize() {
		return (Long) command("DBSIZE");
	}

	/**
	 * Sends {@code INFO} for one section.
	 * @param section the section, for example {@code "server"} or {@code "clients"}
	 * @return the raw text of the reply, lines of {@code field:value}
	 */
	public String info(String section) {
		return (String) command("INFO", section);
	}

	/**
	 * Sends {@code SET key value}.
	 * @param key the key
	 * @param value the value
	 * @return the reply, {@code "OK"}
	 */
	public String set(String key, String value) {
		return (String) command("SET", key, value);
	}

	/**
	 * Sends {@code GET key}.
	 * @param key the key
	 * @return the value, or {@code null} if the key does not exist
	 */
	public String get(String key) {
		return (String) command("GET", key);
	}

	/**
	 * Sends {@code PTTL key}.
	 * @param key the key
	 * @return the time to live in milliseconds, {@code -1} if the key has no expiry,
	 * {@code -2} if it does not exist
	 */
	public long pttl(String key) {
		return (Long) command("PTTL", key);
	}

	/**
	 * Sends {@code KEYS pattern}.
	 * @param pattern the glob-style pattern, for example {@code "lock:*"}
	 * @return the matching keys, in no particular order
	 */
	public List<String> keys(String pattern) {
		List<?> reply = (List<?>) command("KEYS", pattern);
		List<String> keys = new ArrayList<>(reply.size());
		for (Object key : reply) {
			keys.add((String) key);
		}
		return keys;
	}

	/**
	 * Closes the connection. Calling it again has no effect.
	 */
	@Override
	public void close() {
		disconnect();
	}

	private void connect() {
		Socket socket = new Socket();
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(this.timeoutMillis);
			socket.connect(new InetSocketAddress(this.host, this.port), this.timeoutMillis);
			this.input = new BufferedInputStream(socket.getInputStream());
			this.output = new BufferedOutputStream(socket.getOutputStream());
			this.socket = socket;
		}
		catch (IOException ex) {
			closeQuietly(socket);
			throw new UncheckedIOException("Could not connect to Redis at " + this.host + ":" + this.port, ex);
		}
	}

	private void disconnect() {
		if (this.socket != null) {
			closeQuietly(this.socket);
			this.socket = null;
			this.input = null;
			this.output = null;
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing to do: the connection is abandoned anyway
		}
	}

	private void write(String[] args) throws IOException {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		writeLine(buffer, "*" + args.length);
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			writeLine(buffer, "$" + bytes.length);
			buffer.write(bytes);
			buffer.write('\r');
			buffer.write('\n');
		}
		buffer.writeTo(this.output);
		this.output.flush();
	}

	private static void writeLine(ByteArrayOutputStream buffer, String line) {
		buffer.writeBytes(line.getBytes(StandardCharsets.US_ASCII));
		buffer.write('\r');
		buffer.write('\n');
	}

	private Object read() throws IOException {
		int type = this.input.read();
		if (type == -1) {
			throw new EOFException("Connection closed by Redis");
		}
		String line = readLine();
		return switch (type) {
			case '+' -> line;
			case '-' -> throw new RedisErrorReplyException(line);
			case ':' -> Long.parseLong(line);
			case '$' -> readBulk(Integer.parseInt(line));
			case '*' -> readArray(Integer.parseInt(line));
			default -> throw new IOException("Unexpected reply type '" + (char) type + "' followed by " + line);
		};
	}

	private String readBulk(int length) throws IOException {
		if (length < 0) {
			return null;
		}
		byte[] bytes = this.input.readNBytes(length);
		if (bytes.length < length) {
			throw new EOFException("Connection closed by Redis in the middle of a reply");
		}
		readLine();
		return new String(bytes, StandardCharsets.UTF_8);
	}

	private List<Object> readArray(int length) throws IOException {
		if (length < 0) {
			return null;
		}
		List<Object> elements = new ArrayList<>(length);
		for (int i = 0; i < length; i++) {
			try {
				elements.add(read());
			}
			catch (RedisErrorReplyException ex) {
				// An error inside an array (EXEC) is a value: the reply goes on after it
				elements.add(ex);
			}
		}
		return elements;
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int current = this.input.read();
			if (current == -1) {
				throw new EOFException("Connection closed by Redis in the middle of a reply");
			}
			if (previous == '\r' && current == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(current);
			previous = current;
		}
	}

}
