/// Introspection XML for an exported path: its interfaces (standard ones included) and the
/// names of its children.
enum Introspection {
    static func xml(for path: String, objects: ObjectRegistry) -> String {
        var lines = [
            #"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN""#,
            #" "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">"#,
            "<node>",
        ]
        lines += standardInterfaces
        if objects.isManager(path) {
            lines += objectManager
        }
        for interface in objects.interfaces(at: path) ?? [] {
            lines.append(#"  <interface name="\#(interface.name)">"#)
            for method in interface.methods {
                lines.append(#"    <method name="\#(method.name)">"#)
                lines += arguments(method.inSignature, direction: "in")
                lines += arguments(method.outSignature, direction: "out")
                lines.append("    </method>")
            }
            for signal in interface.signals {
                lines.append(#"    <signal name="\#(signal.name)">"#)
                lines += arguments(signal.signature, direction: nil)
                lines.append("    </signal>")
            }
            for property in interface.properties {
                lines.append(
                    #"    <property name="\#(property.name)" type="\#(property.value.signature)" access="\#(property.access.rawValue)"/>"#
                )
            }
            lines.append("  </interface>")
        }
        for child in objects.childNames(of: path) {
            lines.append(#"  <node name="\#(child)"/>"#)
        }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func arguments(_ signature: String, direction: String?) -> [String] {
        (DBusSignature.split(signature) ?? []).map { type in
            // Signatures never contain XML-special characters.
            if let direction {
                return #"      <arg type="\#(type)" direction="\#(direction)"/>"#
            }
            return #"      <arg type="\#(type)"/>"#
        }
    }

    private static let standardInterfaces = [
        #"  <interface name="org.freedesktop.DBus.Introspectable">"#,
        #"    <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>"#,
        "  </interface>",
        #"  <interface name="org.freedesktop.DBus.Peer">"#,
        #"    <method name="Ping"/>"#,
        "  </interface>",
        #"  <interface name="org.freedesktop.DBus.Properties">"#,
        #"    <method name="Get"><arg name="interface" type="s" direction="in"/>"#
            + #"<arg name="name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>"#,
        #"    <method name="GetAll"><arg name="interface" type="s" direction="in"/>"#
            + #"<arg name="properties" type="a{sv}" direction="out"/></method>"#,
        #"    <method name="Set"><arg name="interface" type="s" direction="in"/>"#
            + #"<arg name="name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>"#,
        #"    <signal name="PropertiesChanged"><arg name="interface" type="s"/>"#
            + #"<arg name="changed" type="a{sv}"/><arg name="invalidated" type="as"/></signal>"#,
        "  </interface>",
    ]

    private static let objectManager = [
        #"  <interface name="org.freedesktop.DBus.ObjectManager">"#,
        #"    <method name="GetManagedObjects"><arg name="objects" type="a{oa{sa{sv}}}" direction="out"/></method>"#,
        #"    <signal name="InterfacesAdded"><arg name="object" type="o"/>"#
            + #"<arg name="interfaces" type="a{sa{sv}}"/></signal>"#,
        #"    <signal name="InterfacesRemoved"><arg name="object" type="o"/>"#
            + #"<arg name="interfaces" type="as"/></signal>"#,
        "  </interface>",
    ]
}
