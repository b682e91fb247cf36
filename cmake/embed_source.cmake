# Writes OUTPUT: a C++ file defining `const char* const SYMBOL` as INPUT's text.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "namespace blocktune {\nextern const char* const ${SYMBOL};\nconst char* const ${SYMBOL} = R\"blocktune_source(${text})blocktune_source\";\n}\n")
