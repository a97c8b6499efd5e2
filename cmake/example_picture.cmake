# The README's picture of the bundled example: dlldoctor's --format dot, drawn by Graphviz.
#   cmake -DDLLDOCTOR=... -DDOT=... -DEXAMPLE=DIR -DOUTPUT=FILE.svg -P example_picture.cmake
# dlldoctor exits 1 on this example (it has errors: that is its point); 2 or anything else fails the build.
get_filename_component(dir ${OUTPUT} DIRECTORY)
get_filename_component(stem ${OUTPUT} NAME_WE)
set(dot_file ${dir}/${stem}.dot)
execute_process(COMMAND ${DLLDOCTOR} ${EXAMPLE}/app/app.exe --path ${EXAMPLE}/cuda/bin --path ${EXAMPLE}/cudnn/bin
                        --map "${EXAMPLE}=C:\\demo" --format dot -o ${dot_file}
                RESULT_VARIABLE status)
if(NOT status EQUAL 1)
  message(FATAL_ERROR "dlldoctor --format dot on ${EXAMPLE} exited ${status}, not 1")
endif()
execute_process(COMMAND ${DOT} -Tsvg ${dot_file} -o ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "dot -Tsvg ${dot_file} exited ${status}")
endif()
